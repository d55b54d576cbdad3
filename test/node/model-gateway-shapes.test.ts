// What a harness on the official `openai` client and a trainer reading
// events see of the gateway's answers, each field in one shape: every
// refusal as an OpenAI error the client parses into `status`, `type` and
// `code`, a call outside a running episode refused until the next reset,
// and `break` on every `model.call` event.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { STUB_MODEL } from "./fake-vllm";
import { base, client, harnessFor } from "./helpers/model-harness";

type ApiError = InstanceType<typeof OpenAI.APIError>;

const ask = (openai: OpenAI) =>
  openai.chat.completions
    .create({ model: STUB_MODEL, messages: [{ role: "user", content: "hi" }] })
    .then(
      () => undefined,
      (error: unknown) => error
    );

/** An episode the counter ends at its first step: target 1, one incr. */
const endedEpisode = async () => {
  const session = await client.createSession({ environment: "counter" });
  await session.reset({ task: { target: 1 } });
  return session;
};

describe("the model gateway's answers, one shape each", () => {
  it("refuses a call before the first reset with an OpenAI 409 the client parses", async () => {
    const session = await client.createSession({ environment: "counter" });
    const { openai, token } = await harnessFor(session);
    const refused = (await ask(openai)) as ApiError;
    expect(refused).toBeInstanceOf(OpenAI.ConflictError);
    expect(refused).toMatchObject({
      status: 409,
      type: "episode_not_running",
      code: "episode_not_running"
    });
    expect(refused.message).toContain("Reset the session first");
    // The wire shape a Python harness's client reads the same way.
    const raw = await fetch(
      `${base}/v1/sessions/${session.id}/model/v1/chat/completions`,
      {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json"
        },
        body: JSON.stringify({
          model: STUB_MODEL,
          messages: [{ role: "user" }]
        })
      }
    );
    expect(await raw.json()).toEqual({
      error: {
        message: expect.stringContaining("Reset the session first"),
        type: "episode_not_running",
        code: "episode_not_running",
        param: null
      }
    });
  }, 60_000);

  it("refuses a call after the episode ended until the next reset, recording nothing", async () => {
    const session = await endedEpisode();
    const { openai } = await harnessFor(session);
    expect(await ask(openai)).toBeUndefined();
    const step = await session.step({
      role: "assistant",
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "incr", arguments: "{}" }
        }
      ]
    });
    expect(step.done).toBe(true);
    const refused = (await ask(openai)) as ApiError;
    expect(refused).toBeInstanceOf(OpenAI.ConflictError);
    expect(refused).toMatchObject({
      status: 409,
      type: "episode_not_running",
      code: "episode_not_running"
    });
    expect(refused.message).toContain("reset");
    // The ended episode holds the call made while it ran, and only it.
    expect((await session.modelCallsOf()).map((c) => c.step)).toEqual([0]);
    await session.reset({ task: { target: 1 } });
    expect(await ask(openai)).toBeUndefined();
    expect(await session.modelCallsOf()).toHaveLength(1);
  }, 60_000);

  it("answers a credential and a body it refuses as OpenAI errors too", async () => {
    const session = await client.createSession({ environment: "counter" });
    await session.reset();
    const wrongKey = new OpenAI({
      baseURL: `${base}/v1/sessions/${session.id}/model/v1`,
      apiKey: "v1.nobody.nothing",
      maxRetries: 0
    });
    const refused = (await ask(wrongKey)) as ApiError;
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused).toMatchObject({ type: "forbidden", code: "forbidden" });
    const { openai } = await harnessFor(session);
    const invalid = (await openai.chat.completions
      .create({ model: STUB_MODEL, messages: [] })
      .catch((error: unknown) => error)) as ApiError;
    expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
    expect(invalid).toMatchObject({
      type: "invalid_request",
      code: "invalid_request"
    });
    // A path the gateway does not serve, which an OpenAI client may ask.
    const models = (await openai.models
      .list()
      .catch((error: unknown) => error)) as ApiError;
    expect(models).toBeInstanceOf(OpenAI.NotFoundError);
    expect(models).toMatchObject({ type: "not_found", code: "not_found" });
  }, 60_000);

  it("writes break on every model.call event, false when the prompt extends the last", async () => {
    const session = await client.createSession({ environment: "counter" });
    await session.reset();
    const { openai } = await harnessFor(session);
    expect(await ask(openai)).toBeUndefined();
    const { token } = await session.mintToken({ scope: "observe" });
    const page = (await (
      await fetch(`${base}/v1/sessions/${session.id}/events?after=0`, {
        headers: { Authorization: `Bearer ${token}` }
      })
    ).json()) as { events: { type: string; break?: unknown }[] };
    const calls = page.events.filter((e) => e.type === "model.call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveProperty("break", false);
  }, 60_000);
});
