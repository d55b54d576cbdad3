/**
 * @module A fork at a past step of the current episode. Nothing is kept per
 * step but what the log lacks (a branchable environment's commits record
 * the task and the hidden store's changes, replay-capture.ts): the
 * episode's retained events are replayed, up to that step's end, into a
 * scratch episode of the session's own tables, which is snapshot as any
 * fork's and dropped, all in one transaction. Tools never run again. What
 * the log cannot give exactly (an entry replaced, or written by code other
 * than a tool's Result; a hidden value too large to record; tables of the
 * environment's own) refuses the fork rather than copy it wrong.
 */

import { committedOnly, ReplayedParts } from "../../environment/replay-parts";
import {
  beforeEpisode,
  type KeptStep,
  keepSteps
} from "../../environment/score-step";
import { RoostError } from "../../errors";
import type { RewardComponents } from "../../protocol";
import type { Branching } from "../../session/fork-source";
import { takeSnapshot } from "../../storage/fork-copy";
import { userTables } from "../../storage/fork-user-tables";
import { SqliteHiddenStore } from "../../storage/hidden-store";
import { readEpisode, retainedEpisodes } from "../../storage/rescore-read";
import {
  SqliteStateBackend,
  SqliteTranscriptBackend
} from "../../storage/state-backend";
import { SqliteStoreBackend } from "../../storage/store-backend";
import { hasTable } from "../../storage/tables";
import { dropEpisodeRows, renumberSnapshot, snapshotHistory } from "./snapshot";

const refuse = (message: string, details?: Record<string, unknown>) =>
  new RoostError("conflict", message, details);

/** Checks what the fork needs before anything is read or written. */
export const checkRewind: Branching["check"] = (
  environment,
  row,
  step,
  sql
) => {
  if (environment.branchable !== true)
    throw refuse(
      `Forking at a past step needs an environment that keeps what a replay reads: defineEnvironment({ branchable: true }) (${environment.name} does not). Fork without "step" to copy the session as it stands.`,
      { step }
    );
  if (row.episode === 0 || step > row.steps)
    throw new RoostError(
      "invalid_request",
      `The episode has ${row.steps} step${row.steps === 1 ? "" : "s"}: fork at one of 1 to ${row.steps}.`,
      { field: "step", steps: row.steps }
    );
  if (userTables(sql).length > 0)
    throw refuse(
      `${environment.name} keeps tables of its own (ctx.sql), which hold no history: only the session as it stands can be forked.`,
      { step }
    );
};

/**
 * Rebuilds step `step` of the current episode and snapshots it under
 * `snap`. Synchronous: call inside the snapshot's transaction.
 */
export const rewindSnapshot: Branching["rewind"] = (
  shared,
  environment,
  row,
  step,
  snap,
  expiresAt
) => {
  const { sql } = shared;
  const log = shared.events;
  const from = retainedEpisodes(sql, log).find(
    (r) => r.episode === row.episode
  );
  if (from === undefined)
    throw new RoostError(
      "gone",
      `The event log no longer holds this episode from its reset (it keeps the newest events only): step ${step} cannot be rebuilt. Fork without "step" to copy the session as it stands.`,
      { step }
    );
  const { logged } = readEpisode(sql, log, from, log.lastSeq + 1);
  if (logged.tooLarge !== undefined)
    throw refuse(
      `This episode's recorded hidden-store changes (${logged.tooLarge} bytes) are more than a fork at a past step reads.`,
      { step }
    );
  const events = committedOnly(logged.events);
  const end = events.find((e) => e.type === "step" && e.step === step);
  if (end === undefined)
    throw new RoostError(
      "gone",
      `Step ${step} is not in the event log any more.`,
      { step }
    );
  // A scratch episode no real one can have; left over only by a crash
  // inside this transaction, which rolls it back.
  const scratch = -row.episode;
  dropEpisodeRows(sql, scratch);
  const parts = new ReplayedParts(environment, {
    store: new SqliteStoreBackend(sql, scratch),
    state: new SqliteStateBackend(sql, scratch),
    transcript: new SqliteTranscriptBackend(sql, scratch),
    hidden: new SqliteHiddenStore(sql, scratch)
  });
  const records = logged.records;
  let next = 0;
  let total = 0;
  let reward = 0;
  // An episode rubric's steps are not recorded as hidden values (their
  // keys are left out, score-step.ts): they are rebuilt from the steps'
  // places and answers, as re-scoring rebuilds them.
  const places = new Map<number, { at: number; reward: number }>();
  const kept: KeptStep[] = [];
  for (const event of events) {
    if (event.seq > end.seq) break;
    for (; next < records.length && records[next]!.seq <= event.seq; next++)
      for (const item of records[next]!.items) {
        if ("set" in item) parts.hidden.set(...(item.set as [string, never]));
        else if ("delete" in item) parts.hidden.delete(item.delete);
        else if ("lost" in item) {
          parts.hidden.delete(item.lost);
          parts.hidden.lost.add(item.lost);
        } else if ("step" in item) places.set(item.step.step, item.step);
      }
    if (event.type === "step") {
      reward = event.reward as number;
      total += reward;
      const place = places.get(event.step as number);
      if (place !== undefined)
        kept.push({
          step: event.step as number,
          ...place,
          components: beforeEpisode(
            event.reward_components as RewardComponents | undefined
          )
        });
    } else parts.apply(event);
  }
  // A step that ended the episode dropped them.
  if (
    environment.episodeRubric !== undefined &&
    end.done !== true &&
    end.truncated !== true
  )
    keepSteps(parts.hidden, kept);
  const unrebuilt = parts.unrebuilt;
  if (unrebuilt.length > 0)
    throw refuse(
      `Step ${step} cannot be rebuilt exactly from the log: ${unrebuilt.slice(0, 5).join(", ")} ${unrebuilt.length === 1 ? "was" : "were"} written other than by a tool's Result (replaced, or added by code) or too large to record.`,
      { step, unrebuilt: unrebuilt.slice(0, 20) }
    );
  // What the steps up to it kept beside: judges' verdicts, model calls
  // made before the next step.
  if (hasTable(sql, "judge_verdicts"))
    sql.exec(
      `INSERT INTO judge_verdicts (episode, step, path, hash, model, value, text, at)
       SELECT ?, step, path, hash, model, value, text, at FROM judge_verdicts
       WHERE episode = ? AND step <= ?`,
      scratch,
      row.episode,
      step
    );
  if (hasTable(sql, "model_calls"))
    sql.exec(
      `INSERT INTO model_calls (episode, call, next, body)
       SELECT ?, call, next, body FROM model_calls
       WHERE episode = ? AND json_extract(body, '$.step') < ?`,
      scratch,
      row.episode,
      step
    );
  const info = snapshotHistory(
    sql,
    snap,
    takeSnapshot(sql, snap, scratch, expiresAt),
    row.episode,
    end.seq
  );
  renumberSnapshot(sql, snap, info.tables, scratch, row.episode);
  dropEpisodeRows(sql, scratch);
  return { info, seq: end.seq, reward, total };
};
