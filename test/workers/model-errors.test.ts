// The model gateway's refusals as a harness's OpenAI client reads them:
// every error under its base URL in OpenAI's shape, `type` and `code`
// Roost's error code, whichever check answered it; a call outside a
// running episode refused, before the first reset and after the end
// alike, and nothing of it recorded. The record's route stays Roost's.
import { describe, expect, it } from "vitest";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import {
  call,
  createResetSession,
  createSession,
  json,
  send,
  step
} from "./helpers";
import { stubOf } from "./session-helpers";

const CHAT = "/model/v1/chat/completions";
const chat = { model: "m", messages: [{ role: "user", content: "hi" }] };

/** The error of an answer, checked to be in OpenAI's shape. */
const openAIErrorOf = async (res: Response) => {
  const { error } = await json<{ error: Record<string, unknown> }>(res);
  expect(error).toMatchObject({
    message: expect.any(String),
    type: expect.any(String),
    param: null
  });
  expect(error.code).toBe(error.type);
  return error;
};

const callsOf = async (s: { call: typeof call }) =>
  (await json<{ calls: unknown[] }>(await s.call("/model/calls"))).calls;

const LIMITS = { max_calls: 10, max_tokens: 1000, max_bytes: 1_000_000 };

describe("the model gateway's errors", () => {
  it("refuses a call before the first reset with OpenAI's 409 episode_not_running", async () => {
    const s = await createSession({ environment: "lab" });
    const res = await s.call(CHAT, send("POST", chat));
    expect(res.status).toBe(409);
    expect(await openAIErrorOf(res)).toMatchObject({
      type: "episode_not_running",
      message: expect.stringContaining("Reset the session first")
    });
  });

  it("refuses a call after the episode ended until the next reset, recording nothing", async () => {
    const s = await createResetSession({ environment: "lab" });
    expect((await step(s, "finish", { reward: 1 })).done).toBe(true);
    const res = await s.call(CHAT, send("POST", chat));
    expect(res.status).toBe(409);
    expect(await openAIErrorOf(res)).toMatchObject({
      type: "episode_not_running",
      message: expect.stringContaining("reset")
    });
    expect(await callsOf(s)).toEqual([]);
    // Admitted again once a reset started an episode: this worker has no
    // upstream, so past the admission its 503.
    await s.call("/reset", send("POST", {}));
    const next = await s.call(CHAT, send("POST", chat));
    expect(next.status).toBe(503);
    expect(await openAIErrorOf(next)).toMatchObject({
      type: "unavailable",
      message: expect.stringContaining("ROOST_MODEL_BASE_URL")
    });
  });

  it("refuses to record a call whose episode ended while the model answered", async () => {
    const s = await createResetSession({ environment: "lab" });
    const stub = stubOf(s.session_id);
    expect(await stub.op("modelAdmit", LIMITS, SERVER_GRANT)).toMatchObject({
      ok: true
    });
    await step(s, "finish", { reward: 1 });
    const recorded = await stub.op(
      "modelRecord",
      {
        episode: 1,
        record: {
          ms: 1,
          request: { params: { model: "m" }, messages_from: 0, messages: [] },
          status: 200
        },
        mark: { messages: 0, messagesHash: "", tokens: 0, tokensHash: "" },
        model: "m",
        broke: false
      },
      SERVER_GRANT
    );
    expect(recorded).toMatchObject({
      ok: false,
      error: { code: "episode_not_running" }
    });
    expect(await callsOf(s)).toEqual([]);
  });

  it("names the limit an episode's calls passed in the OpenAI 409's details", async () => {
    const s = await createResetSession({ environment: "lab" });
    // One call the upstream counted the deployment's 10 000 000 tokens for.
    await stubOf(s.session_id).op(
      "modelRecord",
      {
        episode: 1,
        record: {
          ms: 1,
          request: { params: { model: "m" }, messages_from: 0, messages: [] },
          status: 200,
          response: { usage: { total_tokens: 10_000_000 } }
        },
        mark: { messages: 0, messagesHash: "", tokens: 0, tokensHash: "" },
        model: "m",
        broke: false
      },
      SERVER_GRANT
    );
    const res = await s.call(CHAT, send("POST", chat));
    expect(res.status).toBe(409);
    expect(await openAIErrorOf(res)).toMatchObject({
      type: "conflict",
      details: { limit: "maxTokens", max: 10_000_000 }
    });
  });

  it("answers the core's refusals under its base URL in OpenAI's shape, and the record's in Roost's", async () => {
    const s = await createResetSession({ environment: "lab" });
    const cases: [Promise<Response>, number, string][] = [
      [
        s.call(CHAT, send("POST", { model: "m", messages: [] })),
        400,
        "invalid_request"
      ],
      [
        s.call(CHAT, send("POST", "{", { "Content-Type": "text/plain" })),
        415,
        "unsupported_media_type"
      ],
      [s.call(CHAT), 405, "method_not_allowed"],
      [s.call("/model/v1/models"), 404, "not_found"],
      [
        call(`/v1/sessions/${s.session_id}${CHAT}`, send("POST", chat)),
        401,
        "unauthorized"
      ],
      [
        call(
          `/v1/sessions/${s.session_id}${CHAT}`,
          send("POST", chat, {
            Authorization: "Bearer nothing",
            "Content-Type": "application/json"
          })
        ),
        403,
        "forbidden"
      ]
    ];
    for (const [answer, status, type] of cases) {
      const res = await answer;
      expect(res.status, type).toBe(status);
      expect(await openAIErrorOf(res)).toMatchObject({ type });
    }
    // Rewritten with its headers: a 405 still says what is allowed.
    expect((await s.call(CHAT)).headers.get("Allow")).toBe("POST");
    const record = await s.call("/model/calls?limit=0");
    expect(record.status).toBe(400);
    const { error } = await json<{ error: Record<string, unknown> }>(record);
    expect(error.code).toBe("invalid_request");
    expect(error).not.toHaveProperty("type");
  });
});
