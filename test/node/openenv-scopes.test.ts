// OpenEnv's client re-attaching to a session (`…/openenv/s/<id>.<token>`,
// the base_url a kept session hands out) with a scoped token: exactly the
// frames its EnvClient sends, over the `ws` package, against wrangler dev.
// The token's scope holds on this transport as on every other.
import { describe, expect, inject, it } from "vitest";
import { connect, expectObservation } from "./helpers/openenv-client";

const baseUrl = inject("baseUrl");
const STEP =
  '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}';

const session = async () => {
  const created = await fetch(`${baseUrl}/v1/sessions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ environment: "counter" })
  });
  const { session_id, token } = (await created.json()) as {
    session_id: string;
    token: string;
  };
  const auth = { Authorization: `Bearer ${token}` };
  await fetch(`${baseUrl}/v1/sessions/${session_id}/reset`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: "{}"
  });
  const mint = async (scope: string) => {
    const res = await fetch(`${baseUrl}/v1/sessions/${session_id}/tokens`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ scope })
    });
    return ((await res.json()) as { token: string }).token;
  };
  const base = (scoped: string) =>
    `${baseUrl}/v1/environments/counter/openenv/s/${session_id}.${scoped}`;
  return { mint, base };
};

describe("OpenEnv with a scoped token", () => {
  it("an observe token reads the state, and its step and reset are refused in OpenEnv's error form", async () => {
    const s = await session();
    const env = await connect(s.base(await s.mint("observe")));
    const state = await env.request('{"type": "state"}');
    expect(state).toMatchObject({ type: "state", data: { step_count: 0 } });
    for (const frame of [STEP, '{"type": "reset", "data": {}}']) {
      const refused = await env.request(frame);
      expect(refused.type).toBe("error");
      expect(refused.data).toMatchObject({ roost_code: "forbidden" });
    }
    expect((await env.request('{"type": "state"}')).data).toMatchObject({
      step_count: 0
    });
    env.drop();
  });

  it("an act token steps, and may not reset (a control's act)", async () => {
    const s = await session();
    const env = await connect(s.base(await s.mint("act")));
    const step = expectObservation(await env.request(STEP));
    expect(step.observation.result).toMatchObject({ data: "counter=1" });
    const reset = await env.request('{"type": "reset", "data": {}}');
    expect(reset.type).toBe("error");
    expect(reset.data).toMatchObject({ roost_code: "forbidden" });
    env.drop();
  });
});
