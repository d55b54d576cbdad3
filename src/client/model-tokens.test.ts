import { describe, expect, it } from "vitest";
import type { ModelCall, ModelTokens } from "../protocol/model-calls";
import { tokenSequences, tokenTurns } from "./model-tokens";

const callOf = (
  call: number,
  status: number,
  tokens: ModelTokens
): ModelCall => ({
  call,
  episode: 1,
  step: 0,
  at: "2026-01-01T00:00:00.000Z",
  ms: 1,
  ...(call === 1 ? {} : { base: call - 1 }),
  request: { params: { model: "m" }, messages_from: 0, messages: [] },
  status,
  tokens
});

describe("tokenTurns", () => {
  // As an earlier gateway recorded a cut stream: the partial answer as the
  // call's tokens, and the retry's prompt compared with it, so a break.
  const first = callOf(1, 200, {
    prompt_from: 0,
    prompt: [1, 2],
    completion: [3, 4],
    logprobs: [-0.1, -0.2]
  });
  const cut = callOf(2, 502, {
    prompt_from: 4,
    prompt: [5],
    completion: [6, 7]
  });

  it("skips a failed call recorded with tokens, and the retry extends the turn before it", () => {
    const retry = callOf(3, 200, {
      prompt_from: 0,
      prompt: [1, 2, 3, 4, 5],
      completion: [8, 9],
      logprobs: [-0.3, -0.4]
    });
    const turns = tokenTurns([first, cut, retry]);
    expect(turns.map((t) => [t.call, t.extends_previous])).toEqual([
      [1, false],
      [3, true]
    ]);
    expect(tokenSequences(turns)).toEqual([
      {
        calls: [1, 3],
        token_ids: [1, 2, 3, 4, 5, 8, 9],
        loss_mask: [0, 0, 1, 1, 0, 1, 1],
        logprobs: [null, null, -0.1, -0.2, null, -0.3, -0.4]
      }
    ]);
  });

  it("rebuilds a prompt that counts from the failed call's tokens as they were recorded", () => {
    // The harness kept the partial answer: the prompt extends the cut
    // call's tokens, which the trainer sees as prompt, never as sampled.
    const next = callOf(3, 200, {
      prompt_from: 7,
      prompt: [10],
      completion: [11]
    });
    const turns = tokenTurns([first, cut, next]);
    expect(turns.map((t) => t.call)).toEqual([1, 3]);
    expect(turns[1]!.prompt_ids).toEqual([1, 2, 3, 4, 5, 6, 7, 10]);
    expect(turns[1]!.extends_previous).toBe(true);
    expect(tokenSequences(turns)[0]!.loss_mask).toEqual([
      0, 0, 1, 1, 0, 0, 0, 0, 1
    ]);
  });
});
