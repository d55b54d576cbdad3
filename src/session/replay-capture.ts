/**
 * @module What a replay of an episode needs beside its event log (the
 * task, the hidden store's changes, each step's place), recorded in each
 * commit of the environments `when` picks: re-scoring's (a layer) and a
 * fork at a past step's (the core, for branchable environments) share it.
 */

import type { Environment } from "../environment/define-environment";
import { rescoreItems, writeRescoreItems } from "../storage/rescore-rows";
import type { SessionRuntime } from "./runtime";

export const recordForReplay = (
  runtime: SessionRuntime,
  when: (environment: Environment) => boolean
): void =>
  runtime.commits.capture(({ kind, environment, row, firstSeq, ...c }) => {
    if (!when(environment)) return undefined;
    const items = rescoreItems(environment, {
      ...(kind === "reset" ? { task: row.episodeTask } : {}),
      hidden: c.hiddenChanges(),
      ...(c.step === undefined ? {} : { step: c.step })
    });
    return () =>
      writeRescoreItems(runtime.shared.sql, row.episode, firstSeq, items);
  });
