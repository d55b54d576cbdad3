// OpenEnv's session channel over a real socket (the `ws` package) against
// wrangler dev, sending exactly what OpenEnv's Python clients send (read
// from openenv/core env_client.py, generic_client.py, mcp_client.py and
// sync_client.py, and captured from them): Python json.dumps text with its
// spaces, no subprotocol, no headers, `/ws` appended to the base URL, and
// replies matched by order alone. Every field those clients parse is checked.
import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import {
  OpenEnvErrorFrameSchema,
  OpenEnvStateSchema,
  OpenEnvToolSchema
} from "../../src/protocol/index";
import { createSignal } from "../shared/signal";
import { framesOf } from "./helpers/frames";
import { connect, expectObservation } from "./helpers/openenv-client";

const baseUrl = inject("baseUrl");
const counterBase = `${baseUrl}/v1/environments/counter/openenv`;

const sessionStatus = (state: Record<string, unknown>) =>
  fetch(`${baseUrl}/v1/sessions/${state.session_id}`, {
    headers: { Authorization: `Bearer ${state.session_token}` }
  });

describe("OpenEnv's clients against Roost", () => {
  it("GenericEnvClient: reset, step, state, close — the sync wrapper's sequence", async () => {
    const env = await connect(counterBase);
    const reset = expectObservation(
      await env.request('{"type": "reset", "data": {}}')
    );
    expect(reset.reward).toBe(0);
    expect(reset.done).toBe(false);
    expect(reset.observation.messages).toEqual([
      { role: "user", content: expect.stringContaining("Count to") }
    ]);
    const step = expectObservation(
      await env.request(
        '{"type": "step", "data": {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "incr", "arguments": "{}"}}]}}'
      )
    );
    expect(step.observation.messages).toEqual([
      expect.objectContaining({
        role: "tool",
        tool_call_id: "c1",
        name: "incr",
        content: "counter=1"
      })
    ]);
    const state = await env.request('{"type": "state"}');
    expect(state.type).toBe("state");
    // MCPClientBase._parse_state: episode_id a str or null, step_count an int ≥ 0.
    expect(typeof state.data.episode_id).toBe("string");
    expect(state.data.step_count).toBe(1);
    expect(state.data).toMatchObject({ environment: "counter", kept: false });
    expect(OpenEnvStateSchema().safeParse(state.data).success).toBe(true);
    expect((state.data.values as Record<string, unknown>).count).toBe(1);
    // The session is Roost's own meanwhile.
    expect((await sessionStatus(state.data)).status).toBe(200);
    const closed = await env.close();
    expect(closed.code).toBe(1000);
    expect(closed.extra).toBe(0);
    // The socket's own session goes with it.
    expect((await sessionStatus(state.data)).status).toBe(404);
  });

  it("reset passes seed, episode_id and Roost's task_index; the episode id comes back in state", async () => {
    const env = await connect(`${baseUrl}/v1/environments/calculator/openenv`);
    const question = async (data: string) =>
      (
        expectObservation(
          await env.request(`{"type": "reset", "data": ${data}}`)
        ).observation.messages as { content: string }[]
      )[0]!.content;
    const byIndex = await question('{"task_index": 7}');
    expect(await question('{"task_index": 7}')).toBe(byIndex);
    const bySeed = await question(
      '{"seed": 42, "episode_id": "ep-1", "foo": "bar"}'
    );
    expect(await question('{"seed": 42}')).toBe(bySeed);
    await env.request(
      '{"type": "reset", "data": {"seed": 1, "episode_id": "ep-9"}}'
    );
    const state = await env.request('{"type": "state"}');
    expect(state.data).toMatchObject({ episode_id: "ep-9", step_count: 0 });
    await env.close();
  });

  it("MCPToolClient: list_tools and call_tool as step actions, with results and errors it parses", async () => {
    const env = await connect(counterBase);
    await env.request('{"type": "reset", "data": {}}');
    const listed = expectObservation(
      await env.request('{"type": "step", "data": {"type": "list_tools"}}')
    );
    const tools = listed.observation.tools as Record<string, unknown>[];
    expect(tools.map((t) => t.name)).toEqual(["incr", "decr"]);
    for (const tool of tools) {
      expect(OpenEnvToolSchema().strict().safeParse(tool).success).toBe(true);
      // OpenEnv's Tool forbids extra keys and a null description.
      expect(Object.keys(tool).sort()).toEqual([
        "description",
        "input_schema",
        "name"
      ]);
      expect(typeof tool.description).toBe("string");
      expect(typeof tool.input_schema).toBe("object");
    }
    const called = expectObservation(
      await env.request(
        '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}'
      )
    );
    expect(called.observation).toMatchObject({
      tool_name: "incr",
      error: null,
      // call_tool returns result["data"].
      result: { data: "counter=1" }
    });
    const unknown = expectObservation(
      await env.request(
        '{"type": "step", "data": {"type": "call_tool", "tool_name": "nope", "arguments": {"a": 1}}}'
      )
    );
    // ToolError forbids extra keys; error_type must be one of five.
    expect(unknown.observation.error).toEqual({
      error_type: "tool_not_found",
      message: "Invalid tool call: nope is not a tool. Tools: incr, decr."
    });
    expect(unknown.observation.result).toBeNull();
    await env.close();
  });

  it("answers bad frames in OpenEnv's error form and keeps the socket open", async () => {
    const env = await connect(counterBase);
    const cases: [string | Buffer, string][] = [
      ["not json", "INVALID_JSON"],
      ['{"type": "bogus"}', "UNKNOWN_TYPE"],
      ['{"data": {}}', "UNKNOWN_TYPE"],
      ["[1, 2]", "UNKNOWN_TYPE"],
      ['{"type": "step"}', "VALIDATION_ERROR"],
      ['{"type": "step", "data": {"type": "call_tool"}}', "VALIDATION_ERROR"],
      ['{"type": "step", "data": {"k": 1}}', "VALIDATION_ERROR"],
      [Buffer.from('{"type": "bogus"}'), "UNKNOWN_TYPE"]
    ];
    for (const [frame, code] of cases) {
      const reply = await env.request(frame);
      expect(reply.type, String(frame)).toBe("error");
      expect(OpenEnvErrorFrameSchema().safeParse(reply).success).toBe(true);
      expect(reply.data.code, String(frame)).toBe(code);
      expect(typeof reply.data.message).toBe("string");
    }
    expect((await env.request('{"type": "bogus"}')).data.message).toBe(
      "Unknown message type: bogus"
    );
    // Stepping before a reset is the session's refusal, as EXECUTION_ERROR.
    const early = await env.request(
      '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}'
    );
    expect(early.data).toMatchObject({
      code: "EXECUTION_ERROR",
      roost_code: "episode_not_running"
    });
    expect(env.closedWith()).toBeUndefined();
    expectObservation(await env.request('{"type": "reset", "data": {}}'));
    await env.close();
  });

  it("streams an OpenEnv session's steps to Roost's own session WebSocket", async () => {
    const env = await connect(counterBase);
    await env.request('{"type": "reset", "data": {}}');
    const state = (await env.request('{"type": "state"}')).data;
    const watcher = new WebSocket(
      `${baseUrl.replace(/^http/, "ws")}/v1/sessions/${state.session_id}/ws`,
      ["roost.v1", `roost.token.${state.session_token}`]
    );
    const seen: { type: string }[] = [];
    const signal = createSignal();
    watcher.on("message", (data) => {
      seen.push(...framesOf(data));
      signal.notify();
    });
    await signal.until(() => seen.some((f) => f.type === "session.snapshot"), {
      what: "the watcher's snapshot"
    });
    await env.request(
      '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}'
    );
    await signal.until(() => seen.some((f) => f.type === "step"), {
      what: "the OpenEnv step on Roost's socket"
    });
    watcher.close();
    await env.close();
  });

  it("loses nothing acknowledged when the session's object is aborted mid-episode: the socket closes and a re-attached one carries on", async () => {
    const minted = await fetch(`${counterBase}/connect`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ keep: true })
    });
    const { base_url } = (await minted.json()) as { base_url: string };
    const env = await connect(base_url);
    await env.request('{"type": "reset", "data": {}}');
    const incr =
      '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}';
    await env.request(incr);
    const state = (await env.request('{"type": "state"}')).data;
    const aborted = await fetch(
      `${baseUrl}/__e2e/sessions/${state.session_id}/abort`,
      { method: "POST" }
    );
    expect(aborted.status).toBe(204);
    // The socket lived in the object: the platform closes it with the object.
    await expect(env.request(incr)).rejects.toThrow(/closed with/);
    const again = await connect(state.reattach_base_url as string);
    expect((await again.request('{"type": "state"}')).data).toMatchObject({
      session_id: state.session_id,
      step_count: 1
    });
    const step = expectObservation(await again.request(incr));
    expect(step.observation.result).toMatchObject({ data: "counter=2" });
    await again.close();
    await fetch(`${baseUrl}/v1/sessions/${state.session_id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${state.session_token}` }
    });
  });

  it("routes mcp frames to Roost's MCP dispatch", async () => {
    const env = await connect(counterBase);
    await env.request('{"type": "reset", "data": {}}');
    const listed = await env.request(
      '{"type": "mcp", "data": {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}}'
    );
    expect(listed.type).toBe("mcp");
    expect(listed.data).toMatchObject({ jsonrpc: "2.0", id: 7 });
    expect(
      (listed.data.result as { tools: { name: string }[] }).tools.map(
        (t) => t.name
      )
    ).toEqual(["incr", "decr"]);
    const unknown = await env.request(
      '{"type": "mcp", "data": {"jsonrpc": "2.0", "id": "a", "method": "foo/bar"}}'
    );
    expect(unknown.data).toMatchObject({
      id: "a",
      error: { code: -32601 }
    });
    await env.close();
  });

  it("deletes the session of a socket that drops without close", async () => {
    const env = await connect(counterBase);
    await env.request('{"type": "reset", "data": {}}');
    const state = (await env.request('{"type": "state"}')).data;
    env.drop();
    const signal = createSignal();
    let status = 200;
    const poll = setInterval(async () => {
      status = (await sessionStatus(state)).status;
      signal.notify();
    }, 100);
    try {
      await signal.until(() => status === 404, {
        what: "the dropped socket's session to be deleted"
      });
    } finally {
      clearInterval(poll);
    }
  });

  it("keeps a session minted with keep, and re-attaches to it after the socket is gone", async () => {
    const minted = await fetch(`${counterBase}/connect`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ keep: true })
    });
    expect(minted.status).toBe(200);
    const { base_url } = (await minted.json()) as { base_url: string };
    const first = await connect(base_url);
    const replies = [
      await first.request('{"type": "reset", "data": {}}'),
      await first.request(
        '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}'
      ),
      await first.request('{"type": "state"}')
    ];
    const state = replies[2]!.data;
    expect(state.kept).toBe(true);
    // The connect credential admits to the environment; no frame repeats it.
    const credential = base_url.slice(base_url.indexOf("/c/") + 3);
    expect(JSON.stringify(replies)).not.toContain(credential);
    first.drop();
    const again = await connect(state.reattach_base_url as string);
    const resumed = await again.request('{"type": "state"}');
    expect(resumed.data).toMatchObject({
      session_id: state.session_id,
      step_count: 1
    });
    const step = expectObservation(
      await again.request(
        '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}'
      )
    );
    expect(step.observation.result).toMatchObject({ data: "counter=2" });
    await again.close();
    // A re-attached socket never deletes the session; Roost's API does.
    expect((await sessionStatus(state)).status).toBe(200);
    const deleted = await fetch(`${baseUrl}/v1/sessions/${state.session_id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${state.session_token}` }
    });
    expect(deleted.status).toBe(200);
  });

  it("refuses a forged connect URL with an error frame, then a close", async () => {
    const env = await connect(`${counterBase}/c/9999999999.1.v1.dev.AAAA`);
    const reply = await env.request('{"type": "reset", "data": {}}');
    expect(reply).toMatchObject({
      type: "error",
      data: { code: "SESSION_ERROR" }
    });
    const signal = createSignal();
    env.ws.on("close", () => signal.notify());
    await signal.until(() => env.closedWith() !== undefined, {
      what: "the refused socket to close"
    });
    expect(env.closedWith()).toBe(4403);
  });

  it("runs 32 sockets at once, each its own session, and leaves none behind", async () => {
    const run = async () => {
      const env = await connect(counterBase);
      await env.request('{"type": "reset", "data": {}}');
      let done = false;
      for (let i = 0; i < 10 && !done; i++) {
        done = expectObservation(
          await env.request(
            '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}'
          )
        ).done;
      }
      const state = (await env.request('{"type": "state"}')).data;
      await env.close();
      return { done, state };
    };
    const runs = await Promise.all(Array.from({ length: 32 }, run));
    expect(runs.every((r) => r.done)).toBe(true);
    expect(new Set(runs.map((r) => r.state.session_id)).size).toBe(32);
    const statuses = await Promise.all(
      runs.map(async (r) => (await sessionStatus(r.state)).status)
    );
    expect(statuses).toEqual(runs.map(() => 404));
  }, 60_000);

  it("serves /health, /metadata and /schema as OpenEnv does", async () => {
    expect(await (await fetch(`${counterBase}/health`)).json()).toEqual({
      status: "healthy"
    });
    expect(await (await fetch(`${counterBase}/metadata`)).json()).toEqual({
      name: "counter",
      description: expect.any(String),
      readme_content: null,
      version: "1.0.0",
      author: null,
      documentation_url: null
    });
    const schema = (await (
      await fetch(`${counterBase}/schema`)
    ).json()) as Record<string, Record<string, unknown>>;
    for (const part of ["action", "observation", "state"])
      expect(typeof schema[part]).toBe("object");
    expect(JSON.stringify(schema.action)).toContain('"incr"');
    expect(schema.state!.properties).toMatchObject({
      step_count: { type: "integer" },
      values: { properties: { count: expect.any(Object) } }
    });
    const plain = await fetch(`${counterBase}/ws`);
    expect(plain.status).toBe(426);
  });
});
