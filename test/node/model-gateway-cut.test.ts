// A stream the model server cuts off, with the client its users run: the
// `openai` npm client streams, gets an error mid-answer and sends the
// identical request again, as a harness retries. The partial answer it
// never received must not reach training data, and the retry must go on
// the sequence the failure interrupted.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { tokenSequences, tokenTurns } from "../../src/client/index";
import { STUB_CUT } from "./fake-vllm";
import { counter, expected, harnessFor, play } from "./helpers/model-harness";

describe("the model gateway, a stream cut off", () => {
  it("records the cut call without tokens, and its retry extends the turn before it", async () => {
    const session = await counter();
    const { openai } = await harnessFor(session);
    // Unique, so the stand-in cuts each of this test's prompts off once.
    const received = await play(
      session,
      openai,
      [{ role: "user", content: `Count. steps:2 ${randomUUID()}` }],
      true,
      { model: STUB_CUT, retry: true }
    );
    expect(received).toHaveLength(3);
    const calls = await session.modelCallsOf();
    // Each turn: the cut call, then its retry.
    expect(calls.map((c) => [c.call, c.status])).toEqual([
      [1, 502],
      [2, 200],
      [3, 502],
      [4, 200],
      [5, 502],
      [6, 200]
    ]);
    // The last answer is short: all its chunks went out before the cut,
    // but not the stream's end, so the harness got an error all the same.
    for (const cut of calls.filter((c) => c.status === 502)) {
      expect(cut.error).toEqual({
        message: "The model's stream was cut off.",
        type: "model_error"
      });
      expect(cut.tokens).toBeUndefined();
    }
    // What the harness read before the cut stays for debugging, as the
    // answer, which no trainer reads.
    expect(calls[0]!.response).toMatchObject({
      choices: [
        {
          finish_reason: null,
          message: { tool_calls: [{ function: { name: "incr" } }] }
        }
      ]
    });
    const turns = tokenTurns(calls);
    expect(turns.map((t) => t.call)).toEqual([2, 4, 6]);
    expect(turns.map((t) => t.extends_previous)).toEqual([false, true, true]);
    const want = expected(received);
    expect(turns.map((t) => t.prompt_ids)).toEqual(want.map((w) => w.prompt));
    expect(turns.map((t) => t.completion_ids)).toEqual(
      want.map((w) => w.completion)
    );
    // One sequence, the last turn's prompt and completion, masked in
    // exactly over the completions the harness received.
    const [sequence, ...more] = tokenSequences(turns);
    expect(more).toEqual([]);
    const last = want.at(-1)!;
    expect(sequence!.calls).toEqual([2, 4, 6]);
    expect(sequence!.token_ids).toEqual([...last.prompt, ...last.completion]);
    const mask = sequence!.token_ids.map(() => 0);
    for (const w of want)
      w.completion.forEach((_, k) => {
        mask[w.prompt.length + k] = 1;
      });
    expect(sequence!.loss_mask).toEqual(mask);
    // The log says the same: no tokens and no finish for a cut call, and
    // no retry is a break.
    const events: unknown[] = [];
    for await (const e of session.items.events(0))
      if (e.type === "model.call")
        events.push({
          status: e.status,
          tokens: e.tokens !== undefined,
          finish: e.finish_reason ?? null,
          break: e.break
        });
    const cut = { status: 502, tokens: false, finish: null, break: false };
    const whole = (finish: string) => ({
      status: 200,
      tokens: true,
      finish,
      break: false
    });
    expect(events).toEqual([
      cut,
      whole("tool_calls"),
      cut,
      whole("tool_calls"),
      cut,
      whole("stop")
    ]);
  }, 60_000);
});
