import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS } from "../../src/http/stub";
import {
  action,
  type CallInit,
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
