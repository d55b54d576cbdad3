/** @module Re-scoring: a registered rubric applied again to the session's retained episodes, changing nothing. */

import { type LoggedEpisode, rescoreEpisode } from "../../environment/rescore";
import { rubricNamed } from "../../environment/rescore-rubrics";
import { utf8Length } from "../../json";
import {
  RESCORE_EPISODES,
  RescoreRequestSchema,
  type RescoreResponse,
  RescoreResponseSchema
} from "../../protocol";
import type { Judges } from "../../rewards/judges";
import { sessionJudges } from "../../session/judges";
import { defineOperation } from "../../session/operations/define";
import { offsetOf } from "../../session/operations/paging";
import { readEpisode, retainedEpisodes } from "../../storage/rescore-read";

/**
 * Event text one request reads before it ends its page early (the first
 * episode is read whole whatever its size; the log holds 16 MB at most).
 */
export const RESCORE_READ_BYTES = 8 * 1024 * 1024;

/**
 * Questions a page's judges may put to their models (verdicts already
 * kept are free) before the page ends at the next episode: the first
 * episode is scored whole whatever it asks.
 */
export const RESCORE_JUDGE_QUESTIONS = 200;

/**
 * Answer text a page holds before it ends at the next episode: a rubric of
 * many components (each error up to 1 KiB) could otherwise make the
 * answer many times the log it read.
 */
export const RESCORE_ANSWER_BYTES = 4 * 1024 * 1024;

/** `judges` whose every question put to a model is counted. */
const counted = (judges: Judges, count: () => void): Judges => ({
  ...judges,
  model: (name, limits) => {
    const model = judges.model(name, limits);
    return (
      model && {
        name: model.name,
        ask: (messages, check) => {
          count();
          return model.ask(messages, check);
        }
      }
    );
  }
});

/**
 * A read: it replays the log and the recorded hidden changes in memory,
 * and writes no event, state, store, hidden value or seq. A judge in the
 * rubric finds the verdicts kept when the step was scored (or by an
 * earlier rescore) and asks its model only for a question not asked
 * before, keeping that verdict too: the one write a rescore makes, so the
 * next one does not pay again. It needs
 * `grade`, as reading the hidden store does: a rubric reads it (the
 * reference answer) and its components are functions of it.
 */
export const rescore = defineOperation({
  input: RescoreRequestSchema,
  output: RescoreResponseSchema,
  scope: "grade",
  mutates: false,
  events: [],
  handle: async ({ shared, models }, q): Promise<RescoreResponse> => {
    const row = shared.requireRow();
    shared.seen(row);
    const environment = shared.registry.get(row.environment);
    const rubric = rubricNamed(environment.name, environment.rubrics, q.rubric);
    const log = shared.events;
    const retained = retainedEpisodes(shared.sql, log);
    const wanted = q.episodes === undefined ? undefined : new Set(q.episodes);
    const from = offsetOf(q.cursor);
    const chosen = retained.filter(
      (r) => r.episode >= from && (wanted?.has(r.episode) ?? true)
    );
    const limit = q.limit ?? RESCORE_EPISODES.default;
    // Everything is read before any rubric runs (rubrics may await): a
    // commit landing meanwhile adds nothing to what this answer replays.
    const last = log.lastSeq;
    const logged: LoggedEpisode[] = [];
    let bytes = 0;
    for (const at of chosen) {
      if (logged.length === limit) break;
      if (logged.length > 0 && bytes >= RESCORE_READ_BYTES) break;
      const next = retained.find((r) => r.episode > at.episode);
      const read = readEpisode(
        shared.sql,
        log,
        at,
        Math.min(next?.seq ?? Number.POSITIVE_INFINITY, last + 1)
      );
      logged.push(read.logged);
      bytes += read.bytes;
    }
    const episodes = [];
    let asked = 0;
    let answered = 0;
    for (const one of logged) {
      // A page ends early once its judges asked their budget's worth: the
      // request stays bounded in time and in what it costs the model.
      if (
        episodes.length > 0 &&
        (asked >= RESCORE_JUDGE_QUESTIONS || answered >= RESCORE_ANSWER_BYTES)
      )
        break;
      const judges = counted(
        sessionJudges(shared.sql, models, one.episode, () => shared.now()),
        () => asked++
      );
      const scored = await rescoreEpisode(environment, rubric, one, judges);
      answered += utf8Length(JSON.stringify(scored));
      episodes.push(scored);
    }
    const rest = chosen[episodes.length];
    const unavailable =
      q.episodes === undefined
        ? []
        : q.episodes.filter((n) => !retained.some((r) => r.episode === n));
    return {
      rubric: q.rubric,
      kind: rubric.kind === "rubric" ? "step" : "episode",
      episodes,
      ...(unavailable.length === 0 ? {} : { unavailable }),
      ...(rest === undefined ? {} : { next_cursor: String(rest.episode) })
    };
  }
});

declare module "../../session/operations" {
  interface LayerOperations {
    rescore: typeof rescore;
  }
}
