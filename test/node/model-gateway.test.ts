// The model gateway with the client its users run: the official `openai`
// npm client as the harness, pointed at a session's gateway with a model
// token, playing the counter against an upstream that answers as vLLM's
// OpenAI server does with token ids on (fake-vllm.ts). The record's token
// ids must be the upstream's, turn by turn, streamed or not.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  openaiPolicy,
  rollout,
  tokenSequences,
  tokenTurns
} from "../../src/client/index";
import { E2E_MODEL_API_KEY } from "./fake-openai";
import {
  logprobOf,
  STUB_FAILING,
  STUB_MODEL,
  STUB_SLOW,
  tokenize
} from "./fake-vllm";
import {
  base,
  counter,
  expected,
  harnessFor,
  play,
  type Sent
} from "./helpers/model-harness";

describe("the model gateway", () => {
  it.each([
    ["unstreamed", false],
    ["streamed", true]
  ])(
    "records the upstream's token ids turn by turn, %s, as one sequence",
    async (_name, stream) => {
      const session = await counter();
      const { openai } = await harnessFor(session);
      const sent = await play(
        session,
        openai,
        [{ role: "user", content: "Count. steps:3" }],
        stream
      );
      expect(sent).toHaveLength(4);
      const calls = await session.modelCallsOf();
      expect(calls.map((c) => [c.call, c.step, c.status])).toEqual([
        [1, 0, 200],
        [2, 1, 200],
        [3, 2, 200],
        [4, 3, 200]
      ]);
      // Compact: each call keeps only the messages the previous one lacked.
      expect(calls.map((c) => c.request.messages_from)).toEqual([0, 1, 3, 5]);
      const turns = tokenTurns(calls);
      const want = expected(sent);
      expect(turns.map((t) => t.prompt_ids)).toEqual(want.map((w) => w.prompt));
      expect(turns.map((t) => t.completion_ids)).toEqual(
        want.map((w) => w.completion)
      );
      expect(turns.map((t) => t.completion_logprobs)).toEqual(
        want.map((w) => w.logprobs)
      );
      expect(turns.map((t) => t.extends_previous)).toEqual([
        false,
        true,
        true,
        true
      ]);
      // One sequence: the last prompt and completion, the model's tokens
      // masked in, everything else out.
      const [sequence, ...more] = tokenSequences(turns);
      expect(more).toEqual([]);
      const last = want.at(-1)!;
      expect(sequence!.token_ids).toEqual([...last.prompt, ...last.completion]);
      // Each turn's completion sits right after its prompt, and only those
      // positions are masked in, each with the logprob the upstream gave.
      const mask = sequence!.token_ids.map(() => 0);
      const logprobs = sequence!.token_ids.map((): number | null => null);
      for (const w of want)
        w.completion.forEach((_, k) => {
          mask[w.prompt.length + k] = 1;
          logprobs[w.prompt.length + k] = w.logprobs[k]!;
        });
      expect(sequence!.loss_mask).toEqual(mask);
      expect(sequence!.logprobs).toEqual(logprobs);
      // The log holds each call in order with the steps.
      const types: string[] = [];
      for await (const e of session.items.events(0))
        if (e.type === "model.call" || e.type === "step") types.push(e.type);
      expect(types).toEqual([
        "model.call",
        "step",
        "model.call",
        "step",
        "model.call",
        "step",
        "model.call"
      ]);
      // The upstream's key reaches no read.
      const everything = JSON.stringify({
        calls,
        events: await session.events(0)
      });
      expect(everything).not.toContain(E2E_MODEL_API_KEY);
    },
    60_000
  );

  it("flags a prompt that does not extend the previous turn and starts a new sequence", async () => {
    const session = await counter();
    const { openai } = await harnessFor(session);
    // The harness rewrites its system message after the first call: the
    // second prompt no longer starts with the first turn's tokens.
    let calls = 0;
    await play(
      session,
      openai,
      [
        { role: "system", content: "v1" },
        { role: "user", content: "steps:2" }
      ],
      false,
      {
        before: (m) =>
          calls++ === 1 ? [{ role: "system", content: "v2" }, ...m.slice(1)] : m
      }
    );
    const turns = tokenTurns(await session.modelCallsOf());
    expect(turns.map((t) => t.extends_previous)).toEqual([false, false, true]);
    expect(tokenSequences(turns).map((s) => s.calls)).toEqual([[1], [2, 3]]);
    const breaks: unknown[] = [];
    for await (const e of session.items.events(0))
      if (e.type === "model.call") breaks.push(e.break);
    expect(breaks).toEqual([false, true, false]);
  }, 60_000);

  it("keeps the calls up to a fork in both copies, and each copy's own after it", async () => {
    const session = await counter();
    const { openai } = await harnessFor(session);
    const messages: Sent = [{ role: "user", content: "steps:1" }];
    await openai.chat.completions.create({ model: STUB_MODEL, messages });
    const [copy] = await session.fork(1);
    const copyHarness = await harnessFor(copy!);
    await openai.chat.completions.create({ model: STUB_MODEL, messages });
    await copyHarness.openai.chat.completions.create({
      model: STUB_MODEL,
      messages: [...messages, { role: "user", content: "again" }]
    });
    const mine = await session.modelCallsOf();
    const theirs = await copy!.modelCallsOf();
    expect(mine.map((c) => c.call)).toEqual([1, 2]);
    expect(theirs.map((c) => c.call)).toEqual([1, 2]);
    expect(theirs[0]).toEqual(mine[0]);
    expect(theirs[1]!.request.messages).toEqual([
      { role: "user", content: "again" }
    ]);
    expect(mine[1]!.request.messages).toEqual([]);
  }, 60_000);

  it("answers an upstream failure as an OpenAI error, and records it", async () => {
    const session = await counter();
    const { openai } = await harnessFor(session);
    const failure = await openai.chat.completions
      .create({
        model: STUB_FAILING,
        messages: [{ role: "user", content: "hi" }]
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect((failure as Error).message).toContain("CUDA out of memory");
    const [call] = await session.modelCallsOf();
    expect(call).toMatchObject({
      status: 500,
      error: { message: "CUDA out of memory", type: "upstream_error" }
    });
    expect(call!.tokens).toBeUndefined();
  }, 60_000);

  it("admits a model token to the gateway and nowhere else", async () => {
    const session = await counter();
    const { token, openai } = await harnessFor(session);
    const read = await fetch(`${base}/v1/sessions/${session.id}/state`, {
      headers: { Authorization: `Bearer ${token}` }
    });
    expect(read.status).toBe(403);
    const step = await fetch(`${base}/v1/sessions/${session.id}/step`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json"
      },
      body: JSON.stringify({ action: { role: "assistant", content: "hi" } })
    });
    expect(step.status).toBe(403);
    // And an observe token may not call the model.
    const viewer = await session.mintToken({ scope: "observe" });
    const refused = await new OpenAI({
      baseURL: `${base}/v1/sessions/${session.id}/model/v1`,
      apiKey: viewer.token,
      maxRetries: 0
    }).chat.completions
      .create({ model: STUB_MODEL, messages: [{ role: "user", content: "x" }] })
      .catch((error: unknown) => error);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(403);
    // Nothing was recorded of the refused call; the token's own works.
    expect(await session.modelCallsOf()).toEqual([]);
    await openai.chat.completions.create({
      model: STUB_MODEL,
      messages: [{ role: "user", content: "x" }]
    });
    expect(await session.modelCallsOf()).toHaveLength(1);
  }, 60_000);

  it("gives a rollout's trajectories their token sequences when its policy calls the model through the gateway", async () => {
    const { trajectories } = await rollout({
      baseUrl: base,
      environment: "counter",
      episodes: 2,
      maxSteps: 3,
      modelGateway: true,
      // Its own endpoint is never called: the server's upstream is.
      policy: openaiPolicy({
        model: STUB_MODEL,
        baseUrl: "http://127.0.0.1:9/v1",
        attempts: 1
      })
    });
    for (const t of trajectories) {
      expect(t.error).toBeNull();
      // The counter's first observation asks no steps: the stub calls
      // incr once, then answers in words until the run truncates.
      expect(t.actions).toHaveLength(3);
      const [sequence, ...more] = t.token_sequences ?? [];
      expect(more).toEqual([]);
      expect(sequence!.calls).toEqual([1, 2, 3]);
      // The masked tokens are exactly what the model sampled, turn by
      // turn; the rest is the template, the observations and the history.
      const text = (keep: number) =>
        String.fromCodePoint(
          ...sequence!.token_ids.filter(
            (_, i) => sequence!.loss_mask[i] === keep
          )
        );
      expect(text(1)).toBe("<tool>incr {}</tool><|end|>done<|end|>done<|end|>");
      expect(text(0)).toContain("<|tool|>");
      expect(sequence!.logprobs.filter((l) => l !== null)).toEqual(
        tokenize("<tool>incr {}</tool><|end|>done<|end|>done<|end|>").map(
          logprobOf
        )
      );
      expect(t.deleted).toBe(true);
    }
  }, 60_000);

  it("finishes a stream whose session object was aborted mid-way, recorded once", async () => {
    const session = await counter();
    const { openai } = await harnessFor(session);
    const messages: Sent = [{ role: "user", content: "steps:1" }];
    const stream = await openai.chat.completions.create({
      model: STUB_SLOW,
      messages,
      stream: true
    });
    const chunks: unknown[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      if (chunks.length === 1) {
        // The object dies between admitting the call and recording it.
        const aborted = await fetch(
          `${base}/__e2e/sessions/${session.id}/abort`,
          { method: "POST" }
        );
        expect(aborted.status).toBe(204);
      }
    }
    const calls = await session.modelCallsOf();
    expect(calls).toHaveLength(1);
    expect(tokenTurns(calls)[0]!.completion_ids).toEqual(
      expected([messages])[0]!.completion
    );
  }, 60_000);

  it("ends a stream with an error, not a hang, when a reset ends its episode mid-way", async () => {
    const session = await counter();
    const { openai } = await harnessFor(session);
    const stream = await openai.chat.completions.create({
      model: STUB_SLOW,
      messages: [{ role: "user", content: "steps:1" }],
      stream: true
    });
    let seen = 0;
    const failure = await (async () => {
      for await (const _ of stream) {
        if (seen++ === 0) await session.reset();
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain(
      "The episode ended while the model answered"
    );
    // The record's refusal, not a model failure: a reset meanwhile.
    expect(failure).toMatchObject({ type: "conflict", code: "conflict" });
    // Nothing of it in the episode the reset started.
    expect(await session.modelCallsOf()).toEqual([]);
  }, 60_000);
});
