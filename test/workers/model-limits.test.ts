// The model gateway's limits per episode, checked by the session before
// the upstream is asked: calls, tokens (as the upstream counted them) and
// bytes of record; a call before the first reset; a worker without an
// upstream. Each refusal names its limit and records nothing.
import { describe, expect, it } from "vitest";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import { createResetSession, createSession, json, send } from "./helpers";
import { stubOf } from "./session-helpers";

const LIMITS = { max_calls: 3, max_tokens: 1000, max_bytes: 1_000_000 };

/** A call the gateway recorded: 600 tokens by the upstream's count. */
const recorded = (episode: number) => ({
  episode,
  record: {
    ms: 1,
    request: { params: { model: "m" }, messages_from: 0, messages: [] },
    status: 200,
    response: { usage: { total_tokens: 600 } }
  },
  mark: { messages: 0, messagesHash: "", tokens: 0, tokensHash: "" },
  model: "m",
  broke: false
});

const admit = async (id: string, limits = LIMITS) =>
  stubOf(id).op("modelAdmit", limits, SERVER_GRANT);

describe("the model gateway's limits", () => {
  it("refuses a call past an episode's tokens, then its calls, naming each, and admits again after a reset", async () => {
    const s = await createResetSession({ environment: "lab" });
    const stub = stubOf(s.session_id);
    expect(await admit(s.session_id)).toMatchObject({ ok: true });
    await stub.op("modelRecord", recorded(1), SERVER_GRANT);
    expect(await admit(s.session_id)).toMatchObject({ ok: true });
    await stub.op("modelRecord", recorded(1), SERVER_GRANT);
    // 1 200 tokens used of 1 000.
    expect(await admit(s.session_id)).toMatchObject({
      ok: false,
      error: {
        code: "conflict",
        details: { limit: "maxTokens", max: 1000 }
      }
    });
    expect(
      await admit(s.session_id, { ...LIMITS, max_calls: 2, max_tokens: 1e9 })
    ).toMatchObject({
      ok: false,
      error: { code: "conflict", details: { limit: "maxCalls", max: 2 } }
    });
    expect(
      await admit(s.session_id, { ...LIMITS, max_tokens: 1e9, max_bytes: 100 })
    ).toMatchObject({
      ok: false,
      error: { code: "conflict", details: { limit: "maxBytes", max: 100 } }
    });
    // The limits are an episode's: the next one starts from nothing.
    await s.call("/reset", send("POST", {}));
    expect(await admit(s.session_id)).toMatchObject({ ok: true });
  });

  it("refuses a call before the first reset", async () => {
    const s = await createSession({ environment: "lab" });
    expect(await admit(s.session_id)).toMatchObject({
      ok: false,
      error: { code: "episode_not_running" }
    });
  });

  it("answers 503 naming what to set when the worker has no upstream, and records nothing", async () => {
    const s = await createResetSession({ environment: "lab" });
    const res = await s.call(
      "/model/v1/chat/completions",
      send("POST", { model: "m", messages: [{ role: "user", content: "hi" }] })
    );
    expect(res.status).toBe(503);
    expect(
      (await json<{ error: { message: string } }>(res)).error.message
    ).toContain("ROOST_MODEL_BASE_URL");
    const calls = await json<{ calls: unknown[] }>(
      await s.call("/model/calls")
    );
    expect(calls.calls).toEqual([]);
  });
});
