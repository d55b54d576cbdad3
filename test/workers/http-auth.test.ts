import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  type CallInit,
  call,
  createSession,
  errorOf,
  fetchWorker,
  withEnv
} from "./helpers";
import { ROUTE_TABLE } from "./tables";

/** A concrete URL for a route of the table. */
const urlOf = (path: string, sessionId: string): string =>
  path
    .replace("{id}", sessionId)
    .replace("{tool}", "incr")
    .replace("{name}", "results")
    .replace("{index}", "0")
    .replace("{run_id}", "run-1");

const sessionRoutes = ROUTE_TABLE().filter((r) => r.auth === "session");

const requestFor = (
  route: ReturnType<typeof ROUTE_TABLE>[number],
  headers: Record<string, string>
): CallInit => ({
  method: route.method,
  headers: { "Content-Type": "application/json", ...headers },
  ...(route.body ? { body: "{}" } : {})
});

const neverCreatedId = () => env.SESSIONS.newUniqueId().toString();

const createRoutes = ROUTE_TABLE().filter((r) => r.auth === "create");

describe("create route credentials", () => {
  it("answers every create route 401 without a key and 403 with a wrong or rotated-out one", async () => {
    expect(createRoutes.map((r) => `${r.method} ${r.path}`)).toContain(
      "POST /v1/sessions"
    );
    const rotated = withEnv({ ROOST_API_KEYS: "key-new" });
    const bodies = new Set<string>();
    for (const route of createRoutes) {
      const url = route.path.replace("{name}", "counter");
      const label = `${route.method} ${route.path}`;
      const none = await rotated(url, requestFor(route, {}));
      expect(none.status, label).toBe(401);
      for (const key of ["key-old", "key-new-but-not"]) {
        const res = await rotated(
          url,
          requestFor(route, { Authorization: `Bearer ${key}` })
        );
        expect(res.status, label).toBe(403);
        // Aviary's routes add FastAPI's `detail`; the error itself is one.
        bodies.add(
          JSON.stringify(((await res.json()) as { error: unknown }).error)
        );
      }
    }
    expect(bodies.size).toBe(1);
  });
});

describe("session route credentials", () => {
  it("answers a malformed token and a rotated-out API key with 403 on every session route", async () => {
    const session = await createSession();
    const rotated = withEnv({ ROOST_API_KEYS: "key-new" });
    for (const route of sessionRoutes) {
      const url = urlOf(route.path, session.session_id);
      const label = `${route.method} ${route.path}`;
      for (const credential of ["Bearer v1.dev.%%%", "Bearer key-old"]) {
        const res = await rotated(
          url,
          requestFor(route, { Authorization: credential })
        );
        expect(res.status, `${label} ${credential}`).toBe(403);
      }
    }
  });

  it("answers 401 unauthorized on every session route without credentials", async () => {
    const session = await createSession();
    expect(sessionRoutes.length).toBeGreaterThan(10);
    for (const route of sessionRoutes) {
      const res = await call(
        urlOf(route.path, session.session_id),
        requestFor(route, {})
      );
      expect(res.status, `${route.method} ${route.path}`).toBe(401);
      expect((await errorOf(res)).code).toBe("unauthorized");
    }
  });

  it("answers 403 on every session route to another session's token, with one body", async () => {
    const mine = await createSession();
    const other = await createSession();
    const bodies = new Set<string>();
    for (const route of sessionRoutes) {
      const res = await call(
        urlOf(route.path, mine.session_id),
        requestFor(route, { Authorization: `Bearer ${other.token}` })
      );
      expect(res.status, `${route.method} ${route.path}`).toBe(403);
      // The model gateway answers in OpenAI's error shape (docs/17), with
      // the same code; every other route with one body.
      if (route.path.includes("/model/v1/")) {
        expect(
          ((await res.json()) as { error: { type: string } }).error.type
        ).toBe("forbidden");
        continue;
      }
      bodies.add(await res.text());
    }
    expect(bodies.size).toBe(1);
  });

  it("answers malformed tokens, unknown kids and non-bearer schemes with 403", async () => {
    const session = await createSession();
    const signature = session.token.split(".")[2];
    for (const credential of [
      "Bearer v1.dev.%%%",
      "Bearer v1.dev",
      "Bearer v2.dev.abc",
      `Bearer v1.other.${signature}`,
      `Bearer ${session.token}x`,
      "Bearer just-a-guess",
      `Basic ${btoa("user:pass")}`
    ]) {
      const res = await call(`/v1/sessions/${session.session_id}`, {
        headers: { Authorization: credential }
      });
      expect(res.status, credential).toBe(403);
      expect((await errorOf(res)).code).toBe("forbidden");
    }
  });

  it("gives the same 403 body for an existing session, a missing one and a garbage id", async () => {
    const session = await createSession();
    const stranger = await createSession();
    const texts = [];
    for (const id of [
      session.session_id,
      neverCreatedId(),
      "not-an-id",
      "0".repeat(64)
    ]) {
      const res = await call(`/v1/sessions/${id}/state`, {
        headers: { Authorization: `Bearer ${stranger.token}` }
      });
      expect(res.status).toBe(403);
      texts.push(await res.text());
    }
    expect(new Set(texts).size).toBe(1);
  });

  it("refuses a garbage session id with 403 even to an API key", async () => {
    const via = withEnv({ ROOST_API_KEYS: "key-a" });
    const res = await via("/v1/sessions/not-an-id", {
      headers: { Authorization: "Bearer key-a" }
    });
    expect(res.status).toBe(403);
  });

  it("checks the token before touching the Durable Object", async () => {
    const gets: string[] = [];
    const spy = new Proxy(env.SESSIONS, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (prop === "get") gets.push(String(args[0]));
          return value.apply(target, args);
        };
      }
    });
    const id = neverCreatedId();
    const fetchSpied = async (credential: string) => {
      const res = await fetchWorker(
        { ...env, ROOST_API_KEYS: "key-a", SESSIONS: spy },
        `/v1/sessions/${id}/state`,
        { headers: { Authorization: `Bearer ${credential}` } }
      );
      return res.status;
    };
    expect(await fetchSpied("v1.dev.AAAA")).toBe(403);
    expect(await fetchSpied("key-b")).toBe(403);
    expect(gets).toEqual([]);
    // The control: a valid credential does reach the (missing) session.
    expect(await fetchSpied("key-a")).toBe(404);
    expect(gets).toHaveLength(1);
  });
});
