// A fork at a past step with the clients users run: the TypeScript
// client over HTTP, and its socket over `ws`, against wrangler dev.
import { afterAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import {
  connectSession,
  createClient,
  type RoostSession
} from "../../src/client/index";

const baseUrl = inject("baseUrl");
const client = createClient({ baseUrl });
const made: RoostSession[] = [];
afterAll(async () => {
  await Promise.allSettled(made.map((s) => s.delete()));
});

const call = (name: string, args: object) => ({
  role: "assistant" as const,
  tool_calls: [
    {
      id: `c_${name}`,
      type: "function" as const,
      function: { name, arguments: JSON.stringify(args) }
    }
  ]
});

/** Three steps: a at step 1, b at step 2, a note at step 3. */
const played = async () => {
  const s = await client.createSession({ environment: "branchy" });
  made.push(s);
  await s.reset();
  await s.step(call("put", { key: "a", n: 1 }));
  await s.step(call("put", { key: "b", n: 2 }));
  await s.step(call("note", { text: "three" }));
  return s;
};

describe("a fork at a past step", () => {
  it("copies the episode as it stood after step 2, over HTTP", async () => {
    const s = await played();
    const [copy] = await s.fork(1, { step: 2 });
    made.push(copy!);
    expect(await copy!.status()).toMatchObject({ steps: 2, done: false });
    expect(await copy!.state()).toEqual({ count: 2, last: "" });
    expect((await copy!.keys()).keys.map((k) => k.name)).toEqual(["a", "b"]);
    // Its log holds the episode up to the step, then `forked`.
    const types: string[] = [];
    for await (const e of copy!.items.events(0)) types.push(e.type);
    expect(types[0]).toBe("reset");
    expect(types.filter((t) => t === "step")).toHaveLength(2);
    expect(types.at(-1)).toBe("forked");
    // It goes on alone.
    await copy!.step(call("note", { text: "branch" }));
    expect(await s.state()).toEqual({ count: 2, last: "three" });
    expect(await copy!.state()).toEqual({ count: 2, last: "branch" });
  });

  it("copies it over the session socket", async () => {
    const s = await played();
    const socket = connectSession({
      baseUrl,
      sessionId: s.id,
      token: s.token,
      WebSocket,
      heartbeatMs: 0,
      onEvent: () => {}
    });
    try {
      const forked = await socket.fork(1, 1);
      const copy = client.session(
        forked.sessions[0]!.session_id,
        forked.sessions[0]!.token
      );
      made.push(copy);
      expect(await copy.status()).toMatchObject({ steps: 1 });
      expect((await copy.keys()).keys.map((k) => k.name)).toEqual(["a"]);
    } finally {
      socket.close();
    }
  });
});
