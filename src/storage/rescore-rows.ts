/**
 * @module What re-scoring reads that the event log does not hold, recorded
 * in the commits of environments that register rubrics or are branchable
 * (a fork at a past step replays the same): each episode's
 * task, each commit's hidden-store changes, and each step's place in the
 * transcript and reward before an episode score. State, transcript and
 * environment store are read back from the log itself (environment/replay-parts.ts).
 */

import type { Environment } from "../environment/define-environment";
import type { RecordedItem } from "../environment/rescore";
import {
  type HiddenState,
  isTrajectoryKey,
  type RubricWrites
} from "../environment/score-step";
import { type JsonValue, utf8Length } from "../json";
import { MAX_VALUE_BYTES, RUN_SEPARATOR, textRuns } from "./row-text";

/**
 * One recorded fact, as a line of a row. A hidden value too large to
 * record with its key (near a row's limit) is recorded as `lost`: a
 * re-scoring rubric that reads it gets an error saying so.
 */
export type RescoreItem = RecordedItem;

/**
 * A step's place in the transcript and its reward before an episode score,
 * with what its rubrics wrote to the hidden store (recorded around it).
 */
export type RescoreStep = Extract<RecordedItem, { step: unknown }>["step"] & {
  rubricWrites?: RubricWrites;
};

const itemOf = ([key, ...value]: HiddenState): RescoreItem =>
  value.length === 0 ? { delete: key } : { set: [key, value[0]] };

/**
 * What a commit records, for an environment that registers rubrics
 * (none for one that does not). The episode rubric's own bookkeeping keys
 * (score-step.ts) are left out: they hold the steps, which are recorded
 * as steps.
 */
export const rescoreItems = (
  environment: Environment,
  commit: {
    task?: unknown;
    hidden: ([key: string] | [key: string, value: JsonValue])[];
    step?: RescoreStep;
  }
): RescoreItem[] => {
  if (environment.rubrics === undefined && environment.branchable !== true)
    return [];
  const items: RescoreItem[] = [];
  if ("task" in commit)
    items.push({
      reset: commit.task === undefined ? {} : { task: commit.task as JsonValue }
    });
  const step = commit.step;
  const rubricWrites = step?.rubricWrites;
  const byRubric = new Set(rubricWrites?.before.map(([key]) => key));
  for (const change of commit.hidden) {
    if (isTrajectoryKey(change[0]) || byRubric.has(change[0])) continue;
    items.push(itemOf(change));
  }
  // A key the step's rubrics wrote is recorded as they found it, before
  // the step, and as each left it, after (the episode rubric's after a
  // marker): re-scoring applies each once that rubric has scored, so a
  // rubric sees what it saw then.
  for (const state of rubricWrites?.before ?? []) items.push(itemOf(state));
  // The log cannot say where a step's action is in the transcript (a
  // custom step may answer assistant messages, a tree run appends some
  // between steps), so every step records it: a row per step.
  if (step !== undefined)
    items.push({ step: { step: step.step, at: step.at, reward: step.reward } });
  for (const state of rubricWrites?.step ?? []) items.push(itemOf(state));
  if (rubricWrites?.episode !== undefined) {
    items.push({ episodeRubric: true });
    for (const state of rubricWrites.episode) items.push(itemOf(state));
  }
  return items;
};

/** A commit's items with the seq of its first event: they apply before it. */
export interface RescoreRecord {
  seq: number;
  items: RescoreItem[];
}

const textOf = (item: RescoreItem): string => {
  const text = JSON.stringify(item);
  if (!("set" in item) || utf8Length(text) < MAX_VALUE_BYTES) return text;
  return JSON.stringify({ lost: item.set[0] });
};

/**
 * Writes a commit's items under (episode, seq of its first event), as few
 * rows as fit; one row for a commit that writes less than a row's limit.
 * A commit that streamed no event shares its seq with the next one: its
 * rows take the next parts, and a reader applies them in order, which is
 * what happened. Synchronous: inside the commit's transaction.
 */
export const writeRescoreItems = (
  sql: SqlStorage,
  episode: number,
  seq: number,
  items: readonly RescoreItem[]
): void => {
  if (items.length === 0) return;
  for (const run of textRuns(items.map(textOf))) {
    sql.exec(
      `INSERT INTO rescore_log (episode, seq, part, body)
       VALUES (?, ?, (SELECT coalesce(max(part) + 1, 0) FROM rescore_log WHERE episode = ? AND seq = ?), ?)`,
      episode,
      seq,
      episode,
      seq,
      run.texts.join(RUN_SEPARATOR)
    );
  }
};

/**
 * The retained episodes' resets: episode number and the seq of its reset
 * event, oldest first. A reset's records are the first of its episode (no
 * commit of an episode comes before its reset), so this reads each
 * episode's first row by the key, hopping from one episode to the next:
 * six rows read per episode (measured), not every step's row of every
 * retained episode, and no index, which would add a written row to every
 * step that records.
 */
export const recordedResets = (
  sql: SqlStorage,
  fromSeq: number
): { episode: number; seq: number }[] =>
  sql
    .exec<{ episode: number; seq: number }>(
      `WITH RECURSIVE episodes (e) AS (
         SELECT min(episode) FROM rescore_log
         UNION ALL
         SELECT (SELECT min(episode) FROM rescore_log WHERE episode > e)
         FROM episodes WHERE e IS NOT NULL
       )
       SELECT r.episode AS episode, r.seq AS seq FROM episodes
       JOIN rescore_log r ON r.episode = e AND r.part = 0
         AND r.seq = (SELECT min(seq) FROM rescore_log WHERE episode = e)
       WHERE r.seq >= ? AND substr(r.body, 1, 9) = '{"reset":'
       ORDER BY r.episode`,
      fromSeq
    )
    .toArray()
    .map((r) => ({ episode: Number(r.episode), seq: Number(r.seq) }));

/** The text of one episode's records, summed without reading it into the isolate. */
export const recordBytes = (sql: SqlStorage, episode: number): number =>
  Number(
    sql
      .exec<{ n: number }>(
        "SELECT COALESCE(SUM(length(body)), 0) AS n FROM rescore_log WHERE episode = ?",
        episode
      )
      .one().n
  );

/** Every record of one episode, in the order its commits happened. */
export const episodeRecords = (
  sql: SqlStorage,
  episode: number
): RescoreRecord[] => {
  const records: RescoreRecord[] = [];
  const rows = sql.exec<{ seq: number; body: string }>(
    "SELECT seq, body FROM rescore_log WHERE episode = ? ORDER BY seq, part",
    episode
  );
  for (const row of rows) {
    const items = row.body
      .split(RUN_SEPARATOR)
      .map((line) => JSON.parse(line) as RescoreItem);
    const last = records.at(-1);
    if (last !== undefined && last.seq === Number(row.seq))
      last.items.push(...items);
    else records.push({ seq: Number(row.seq), items });
  }
  return records;
};
