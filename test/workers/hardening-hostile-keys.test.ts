import { describe, expect, it } from "vitest";
import {
  action,
  createResetSession,
  createSession,
  errorOf,
  json,
  send
} from "./helpers";

const HOSTILE = ["__proto__", "constructor", "prototype"] as const;

/** A JSON body sent as written: `JSON.stringify` would drop a `__proto__` key. */
const raw = (method: string, text: string) => ({
  method,
  headers: { "Content-Type": "application/json" },
  body: text
});

const expectUnpolluted = () => {
  const probe: Record<string, unknown> = {};
  expect(probe.polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty("polluted");
  expect(Array.prototype).not.toHaveProperty("polluted");
};

describe("hostile keys through HTTP", () => {
  it.each(HOSTILE)(
    "stores %s as an ordinary tool and result name",
    async (key) => {
      const s = await createResetSession({ environment: "lab" });
      const other = await createResetSession({ environment: "lab" });
      const object = `{"${key}":{"polluted":true},"plain":1}`;
      const added = await s.call(
        `/environment/${key}/${key}`,
        raw(
          "POST",
          `{"objects":[${object}],"metadata":{"__proto__":{"polluted":2}}}`
        )
      );
      expect(added.status).toBe(201);
      const read = await s.call(`/environment?tool=${key}&name=${key}`);
      const text = await read.text();
      // The keys come back as data, exactly as sent.
      const body = JSON.parse(text) as {
        entries: { objects: Record<string, unknown>[]; metadata: object }[];
      };
      const [stored] = body.entries[0]!.objects;
      expect(Object.keys(stored!)).toEqual(
        expect.arrayContaining([key, "plain"])
      );
      expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
      expect(text).toContain('"polluted":true');
      expect(Object.keys(body.entries[0]!.metadata)).toEqual(["__proto__"]);
      // The store lists the key by name; another session has nothing.
      const keys = await json<{
        store: Record<string, Record<string, unknown>>;
      }>(await s.call("/environment"));
      expect(Object.keys(keys.store)).toEqual([key]);
      const theirs = await json<{ store: object }>(
        await other.call("/environment")
      );
      expect(theirs.store).toEqual({});
      expectUnpolluted();
    }
  );

  it.each(HOSTILE)(
    "treats %s as an unknown tool in a step and on the tool route",
    async (key) => {
      const s = await createResetSession({ environment: "lab" });
      const step = await s.call("/step", send("POST", action(key)));
      expect(step.status).toBe(200);
      const out = await json<{ observations: { is_error?: boolean }[] }>(step);
      expect(out.observations[0]?.is_error).toBe(true);
      const direct = await s.call(
        `/tools/${key}`,
        send("POST", { arguments: {} })
      );
      expect(direct.status).toBe(404);
      expect((await errorOf(direct)).code).toBe("not_found");
      // The session still works.
      expect((await s.call("/step", send("POST", action("bump")))).status).toBe(
        200
      );
      expectUnpolluted();
    }
  );

  it.each(HOSTILE)(
    "refuses %s as a state key and changes nothing",
    async (key) => {
      const s = await createResetSession({ environment: "lab" });
      const before = await (await s.call("/state")).text();
      const res = await s.call(
        "/state",
        raw("PATCH", `{"key":"${key}","value":{"polluted":true}}`)
      );
      expect(res.status).toBe(400);
      expect((await errorOf(res)).code).toBe("unknown_state_key");
      expect(await (await s.call("/state")).text()).toBe(before);
      expectUnpolluted();
    }
  );

  it("keeps hostile keys inside tool arguments, tasks and state values as data", async () => {
    const s = await createSession({ environment: "lab" });
    const reset = await s.call(
      "/reset",
      raw("POST", '{"task":{"label":"x","__proto__":{"polluted":true}}}')
    );
    expect(reset.status).toBe(200);
    const step = await s.call(
      "/step",
      raw(
        "POST",
        '{"action":{"tool_calls":[{"id":"c1","type":"function","function":{"name":"note","arguments":{"text":"hi","__proto__":{"polluted":true},"constructor":1}}}]}}'
      )
    );
    expect(step.status).toBe(200);
    const patched = await s.call(
      "/state",
      raw("PATCH", '{"key":"notes","value":["__proto__","constructor"]}')
    );
    expect(patched.status).toBe(200);
    const state = await json<{ state: { notes: string[] } }>(
      await s.call("/state")
    );
    expect(state.state.notes).toEqual(["hi", "__proto__", "constructor"]);
    expectUnpolluted();
  });

  it("keeps a __proto__ argument key in the transcript as the model sent it", async () => {
    const s = await createResetSession({ environment: "lab" });
    const step = await s.call(
      "/step",
      raw(
        "POST",
        '{"action":{"tool_calls":[{"id":"c1","function":{"name":"note","arguments":{"text":"hi","__proto__":{"polluted":true}}}}]}}'
      )
    );
    expect(step.status).toBe(200);
    const text = await (await s.call("/messages?limit=10")).text();
    // The assistant message records the call exactly; the tool's own
    // schema (a zod object) never sees the key.
    expect(text).toContain('"__proto__":{"polluted":true}');
    expectUnpolluted();
  });

  it("refuses names outside the documented character set on routes that carry them", async () => {
    const s = await createResetSession({ environment: "lab" });
    for (const bad of ["a.b", "a%20b", "a%2Fb", "x".repeat(65), "caf%C3%A9"]) {
      const tool = await s.call(
        `/tools/${bad}`,
        send("POST", { arguments: {} })
      );
      expect(tool.status, bad).toBe(400);
      expect((await errorOf(tool)).code, bad).toBe("invalid_name");
      const edit = await s.call(
        `/environment/${bad}/rows`,
        send("POST", { objects: [{ a: 1 }] })
      );
      expect(edit.status, bad).toBe(400);
      expect((await errorOf(edit)).code, bad).toBe("invalid_name");
    }
    const store = await json<{ store: object }>(await s.call("/environment"));
    expect(store.store).toEqual({});
  });
});
