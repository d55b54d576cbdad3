/**
 * @module Training sequences from the model gateway's record, with no
 * tokenizer: each call's prompt and sampled tokens rebuilt whole from its
 * compact record, then turns joined into one sequence for as long as each
 * prompt extends the tokens before it (the previous prompt and what the
 * model sampled). A prompt that does not is a break: the chat template
 * or the harness changed what the model had seen, so a new sequence
 * starts there, and the turn says so.
 */

import type { ModelCall } from "../protocol/model-calls";

/** One model call, its tokens whole. */
export interface TokenTurn {
  call: number;
  /** Steps the episode had committed when the call ended. */
  step: number;
  prompt_ids: number[];
  completion_ids: number[];
  completion_logprobs: (number | null)[];
  /** The prompt starts with every token of the previous turn (prompt, then completion). */
  extends_previous: boolean;
}

/** Turns joined into what a trainer trains on. */
export interface TokenSequence {
  /** The calls it joins, in order. */
  calls: number[];
  token_ids: number[];
  /** 1 where the model sampled the token, 0 for prompt, tool and template tokens. */
  loss_mask: number[];
  /** The sampled tokens' logprobs as the upstream gave them; null elsewhere. */
  logprobs: (number | null)[];
}

/**
 * Each call with tokens, whole, from an episode's calls in order (every
 * page of `GET …/model/calls`). A call without tokens (refused, failed, an
 * upstream that gives none) is skipped, and the next is compared with the
 * last one that had them. So is a failed call (any status but 2xx) that
 * an earlier gateway recorded with the partial answer of a stream cut
 * off: the harness never received it.
 */
export const tokenTurns = (calls: readonly ModelCall[]): TokenTurn[] => {
  // Each call's whole sequence, or the one it passed on when it had none.
  const whole = new Map<number, number[]>();
  const turns: TokenTurn[] = [];
  let previous: number[] | undefined;
  for (const call of calls) {
    const base =
      call.base === undefined ? undefined : (whole.get(call.base) ?? []);
    const t = call.tokens;
    if (t === undefined) {
      whole.set(call.call, base ?? []);
      continue;
    }
    const prompt = [...(base ?? []).slice(0, t.prompt_from), ...t.prompt];
    const sequence = [...prompt, ...t.completion];
    // As recorded, since the next call's `prompt_from` counts from it.
    whole.set(call.call, sequence);
    if (call.status < 200 || call.status > 299) continue;
    turns.push({
      call: call.call,
      step: call.step,
      prompt_ids: prompt,
      completion_ids: t.completion,
      completion_logprobs:
        t.logprobs ?? t.completion.map((): number | null => null),
      extends_previous:
        previous !== undefined &&
        previous.length <= prompt.length &&
        previous.every((id, i) => prompt[i] === id)
    });
    previous = sequence;
  }
  return turns;
};

/** Turns joined: a sequence goes on while each prompt extends it, and a break starts the next. */
export const tokenSequences = (
  turns: readonly TokenTurn[]
): TokenSequence[] => {
  const sequences: TokenSequence[] = [];
  let open: TokenSequence | undefined;
  for (const turn of turns) {
    if (open === undefined || !turn.extends_previous) {
      open = { calls: [], token_ids: [], loss_mask: [], logprobs: [] };
      sequences.push(open);
    }
    const added = turn.prompt_ids.slice(open.token_ids.length);
    open.calls.push(turn.call);
    open.token_ids.push(...added, ...turn.completion_ids);
    open.loss_mask.push(
      ...added.map(() => 0),
      ...turn.completion_ids.map(() => 1)
    );
    open.logprobs.push(
      ...added.map((): number | null => null),
      ...turn.completion_logprobs
    );
  }
  return sequences;
};
