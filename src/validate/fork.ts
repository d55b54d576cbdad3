/** @module Determinism of a fork: a copy made mid-episode continues exactly as its source does under the same actions. */

import { firstDifference, shown } from "./checks";
import { begin, type Played, playOn, stepAll, taskName } from "./episode";
import { scripted } from "./policies";
import { type CheckRow, row } from "./report";
import type { Target } from "./target";

const CHECK = "determinism: fork";

/**
 * Replays `run`'s first half on a new session, forks it, then steps source
 * and copy with the same actions to the end and compares what each
 * showed. A copy is the session's storage, so what an environment keeps
 * elsewhere (module memory keyed by a session's value, a cache) is what
 * tells them apart. Local sessions do not fork: the row says so.
 */
export const forkContinues = async (
  target: Target,
  run: Played | undefined,
  maxSteps: number
): Promise<CheckRow> => {
  const session = await target.open();
  if (session.fork === undefined)
    return {
      check: CHECK,
      status: "SKIP",
      detail: "local sessions do not fork: validate --url <server> runs it"
    };
  if (run === undefined)
    return { check: CHECK, status: "SKIP", detail: "no episode was played" };
  // Half the episode the same script played, so the copy has a past to
  // carry and a future to show; at 0 the copy is made right after reset.
  const at = Math.floor(run.steps.length / 2);
  const source = await begin(session, run.ref);
  for (const action of run.actions.slice(0, at))
    await stepAll([session], [source], action);
  const copy = await session.fork();
  const forked: Played = {
    ...source,
    steps: [...source.steps],
    actions: [...source.actions]
  };
  await playOn([session, copy], [source, forked], scripted(1), maxSteps);
  const part = (p: Played) => ({ ...p, steps: p.steps.slice(at) });
  return row(
    CHECK,
    shown(part(source)) === shown(part(forked))
      ? undefined
      : `a copy of ${taskName(run.ref)} forked after step ${at} differs from its source in ${firstDifference(source, forked)}`,
    `a copy of ${taskName(run.ref)} forked after step ${at} went on as its source did for ${source.steps.length - at} step(s)`
  );
};
