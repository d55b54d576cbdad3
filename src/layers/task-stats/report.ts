/**
 * @module Sends each ended episode of a dataset task to its environment's
 * statistics: an observer of the session's commits, so the send happens
 * after the commit and outside the session's queue.
 */

import { successThresholdOf } from "../../environment/task";
import type { SessionAttach } from "../../session/layer";
import { withinTime } from "../../timeout";
import { type TaskOutcome, taskStatsObject } from "./statistics";
import { confirmed, takeUnconfirmed, unconfirmed } from "./unconfirmed";

/** How long an episode's last answer waits for the statistics to take its outcome. */
const OUTCOME_WAIT_MS = 2_000;

type Send = (
  environment: string,
  outcome: TaskOutcome,
  unconfirmed: number
) => Promise<void>;

/** Each session object's way to the statistics, by its runtime. */
const senders = new WeakMap<object, Send>();

/** Replaces a session object's way to the statistics (a test's that never answers). */
export const replaceOutcomeSender = (runtime: object, send: Send): void => {
  senders.set(runtime, send);
};

/**
 * Sends, after each commit that ended an episode of a dataset task, its
 * outcome. The step is committed whatever happens here: a failure is
 * logged and counted, never answered. The count is kept in the session's
 * storage and carried by its next outcome that gets through, so the
 * statistics say how many episodes they may lack (unconfirmed.ts). The
 * step's answer waits at most OUTCOME_WAIT_MS (so a client that samples
 * its next task once it has the answer sees this one); the session's
 * queue never does.
 */
export const reportOutcomes = ({ runtime, env }: SessionAttach): void => {
  senders.set(runtime, async (environment, outcome, unconfirmed) =>
    taskStatsObject(env, environment).recordTaskOutcome(outcome, unconfirmed)
  );
  const sql = runtime.shared.sql;
  runtime.commits.observe(({ kind, environment, before, row }) => {
    const ref = row.episodeRef;
    if (
      kind === "reset" ||
      ref == null ||
      environment.taskStats === false ||
      before.done ||
      before.truncated ||
      !(row.done || row.truncated)
    )
      return undefined;
    const outcome: TaskOutcome = {
      split: ref.split,
      index: ref.index,
      return: row.total,
      success: row.total >= successThresholdOf(environment)
    };
    const carried = takeUnconfirmed(sql);
    return (
      withinTime(
        () => senders.get(runtime)!(environment.name, outcome, carried),
        OUTCOME_WAIT_MS
      )
        .then(
          () => confirmed(sql, carried),
          (error: unknown) => {
            const count = unconfirmed(sql, carried);
            console.error(
              `Roost: task statistics of ${environment.name} missed an outcome (split ${ref.split ?? "(dataset)"}, index ${ref.index}, session ${row.sessionId}; ${count} unconfirmed by this session, reported with its next outcome)`,
              error
            );
          }
        )
        // An observer never throws: a count that could not be written is logged.
        .catch((error: unknown) =>
          console.error("Roost: task statistics' unconfirmed count", error)
        )
    );
  });
};
