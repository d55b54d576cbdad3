import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS } from "../../src/http/gateway";
import {
  action,
  type CallInit,
  call,
  createSession,
  errorOf,
  fetchWorker,
  send
} from "./helpers";

/** SESSIONS whose stubs fail every call with `error`, counting the stubs made. */
const failing = (error: Error) => {
  const stubs: number[] = [];
  const failingStub = new Proxy(
    {},
    {
      get: () => () => Promise.reject(error)
    }
  );
  const namespace = new Proxy(env.SESSIONS, {
    get(target, prop, receiver) {
      if (prop === "get") {
        return () => {
          stubs.push(stubs.length + 1);
          return failingStub;
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    }
  });
  return { namespace, stubs };
};

const platformError = (fields: { retryable?: boolean; overloaded?: boolean }) =>
  Object.assign(
    new Error("Durable Object reset because its code was updated."),
    fields
  );

const fetchWith = (
  namespace: typeof env.SESSIONS,
  path: string,
  init: CallInit
) => fetchWorker({ ...env, SESSIONS: namespace }, path, init);

describe("Durable Object platform errors", () => {
  it("retries a read with a fresh stub each time, then answers 503 with Retry-After", async () => {
    const session = await createSession();
    const { namespace, stubs } = failing(platformError({ retryable: true }));
    const res = await fetchWith(
      namespace,
      `/v1/sessions/${session.session_id}`,
      {
        headers: { Authorization: `Bearer ${session.token}` }
      }
    );
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect((await errorOf(res)).code).toBe("unavailable");
    expect(stubs).toHaveLength(MAX_ATTEMPTS);
  });

  it("retries a mutation only when it carries an Idempotency-Key", async () => {
    const session = await createSession();
    const headers = {
      Authorization: `Bearer ${session.token}`,
      "Content-Type": "application/json"
    };
    const path = `/v1/sessions/${session.session_id}/step`;
    const unkeyed = failing(platformError({ retryable: true }));
    const once = await fetchWith(
      unkeyed.namespace,
      path,
      send("POST", action("incr"), headers)
    );
    expect(once.status).toBe(503);
    expect((await errorOf(once)).message).toContain("Idempotency-Key");
    expect(unkeyed.stubs).toHaveLength(1);
    const keyed = failing(platformError({ retryable: true }));
    const retried = await fetchWith(
      keyed.namespace,
      path,
      send("POST", action("incr"), { ...headers, "Idempotency-Key": "k" })
    );
    expect(retried.status).toBe(503);
    expect(keyed.stubs).toHaveLength(MAX_ATTEMPTS);
  });

  it("never retries an overloaded object", async () => {
    const session = await createSession();
    const { namespace, stubs } = failing(
      platformError({ retryable: true, overloaded: true })
    );
    const res = await fetchWith(
      namespace,
      `/v1/sessions/${session.session_id}/state`,
      {
        headers: { Authorization: `Bearer ${session.token}` }
      }
    );
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(stubs).toHaveLength(1);
  });

  it("answers any other thrown error with 500 internal and no detail", async () => {
    const session = await createSession();
    const { namespace } = failing(new Error("secret detail"));
    const res = await fetchWith(
      namespace,
      `/v1/sessions/${session.session_id}`,
      {
        headers: { Authorization: `Bearer ${session.token}` }
      }
    );
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: { code: "internal", message: "Internal error." }
    });
  });
});

/**
 * SESSIONS whose first stub runs its call for real and then throws a
 * retryable error, as when a connection breaks after the object
 * committed; later stubs are the real ones. Counts the stubs made.
 */
const committedThenBroken = () => {
  const stubs: number[] = [];
  const namespace = new Proxy(env.SESSIONS, {
    get(target, prop, receiver) {
      if (prop === "get") {
        return (id: DurableObjectId) => {
          stubs.push(stubs.length + 1);
          const real = target.get(id) as unknown as {
            op(...args: unknown[]): Promise<unknown>;
          };
          if (stubs.length > 1) return real;
          // Only `op` is called through a gateway; it answers, then breaks.
          return {
            op: async (...args: unknown[]) => {
              await real.op(...args);
              throw platformError({ retryable: true });
            }
          };
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    }
  });
  return { namespace, stubs };
};

describe("an attempt that committed before the platform broke the call", () => {
  it("DELETE answers 200 when its retry finds the session gone", async () => {
    const session = await createSession();
    const { namespace, stubs } = committedThenBroken();
    const res = await fetchWith(
      namespace,
      `/v1/sessions/${session.session_id}`,
      {
        method: "DELETE",
        headers: { Authorization: `Bearer ${session.token}` }
      }
    );
    expect(res.status).toBe(200);
    expect(stubs).toHaveLength(2);
    expect((await session.call("")).status).toBe(404);
  });

  it("Aviary's close answers 200 as DELETE does, not 404", async () => {
    const start = await call(
      "/v1/environments/counter/aviary/start",
      send("POST", {})
    );
    const { env_id } = (await start.json()) as { env_id: string };
    const { namespace, stubs } = committedThenBroken();
    const res = await fetchWith(
      namespace,
      "/v1/environments/counter/aviary/close",
      send("POST", { env_id })
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ env_id });
    expect(stubs).toHaveLength(2);
    const again = await call(
      "/v1/environments/counter/aviary/reset",
      send("POST", { env_id })
    );
    expect(again.status).toBe(404);
  });

  it("creating answers 201 with the session its first attempt made", async () => {
    const { namespace, stubs } = committedThenBroken();
    const res = await fetchWith(
      namespace,
      "/v1/sessions",
      send("POST", { environment: "counter" })
    );
    expect(res.status).toBe(201);
    expect(stubs).toHaveLength(2);
    const { session_id, token } = (await res.json()) as {
      session_id: string;
      token: string;
    };
    const status = await call(`/v1/sessions/${session_id}`, {
      headers: { Authorization: `Bearer ${token}` }
    });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ steps: 0, episode: 0 });
  });

  it("a step without a key is sent once: 503 says it may have been applied", async () => {
    const session = await createSession();
    expect((await session.call("/reset", send("POST", {}))).status).toBe(200);
    const { namespace, stubs } = committedThenBroken();
    const res = await fetchWith(
      namespace,
      `/v1/sessions/${session.session_id}/step`,
      send("POST", action("incr"), {
        Authorization: `Bearer ${session.token}`,
        "Content-Type": "application/json"
      })
    );
    expect(res.status).toBe(503);
    expect((await errorOf(res)).message).toContain("may or may not");
    expect(stubs).toHaveLength(1);
    // It was applied, once.
    const status = await session.call("");
    expect(await status.json()).toMatchObject({ steps: 1 });
  });
});
