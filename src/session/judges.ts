/** @module What a session lends its rubrics' judges: the deployment's models and the episode's kept verdicts. */

import type { Judges, Verdict } from "../rewards/judges";
import { judgeModel } from "../runner/judge-model";
import { hasTable } from "../storage/tables";
import { readVerdict, writeVerdict } from "../storage/verdict-rows";
import type { ModelResolver } from "./models";

/** A question being asked, and how many callers joined it since. */
interface Asking {
  verdict: Promise<Verdict>;
  joined: number;
}

/**
 * The questions each session object is asking now, by its storage: a
 * verdict is kept only once it comes back, so two rescores scoring the
 * same step at once would both miss it and both pay the model.
 */
const asking = new WeakMap<SqlStorage, Map<string, Asking>>();

/** How many callers of this object waited on another's question rather than ask it (for tests). */
export const questionsJoined = (sql: SqlStorage): number =>
  [...(asking.get(sql)?.values() ?? [])].reduce((n, a) => n + a.joined, 0);

/**
 * Judges for one step of `episode`. The model comes from the deployment's
 * configuration (createRoost's `models`, ROOST_MODEL_BASE_URL…), never a
 * request, so its endpoint and key stay on the server. A verdict is
 * written the moment it comes back, on its own and not with the step's
 * commit: a step that then crashes, is aborted or refused, and is tried
 * again finds it, and the model is not paid twice for the same question.
 */
export const sessionJudges = (
  sql: SqlStorage,
  models: ModelResolver,
  episode: number,
  now: () => number
): Judges => ({
  model: (name, limits) => {
    const model = models.judge(name);
    return model === undefined ? undefined : judgeModel(model, limits);
  },
  recall: (key) => readVerdict(sql, episode, key),
  // A rescore awaits its judges outside the queue: the session may have
  // been deleted meanwhile, and a verdict written then would remake a
  // table in an object nothing will ever clean up.
  keep: (key, verdict) => {
    if (hasTable(sql, "session"))
      writeVerdict(sql, episode, key, verdict, now());
  },
  once: (key, ask) => {
    let questions = asking.get(sql);
    if (questions === undefined) {
      questions = new Map();
      asking.set(sql, questions);
    }
    const id = JSON.stringify([episode, key.step, key.path, key.hash]);
    const found = questions.get(id);
    if (found !== undefined) {
      found.joined++;
      return found.verdict;
    }
    const entry: Asking = {
      verdict: ask().finally(() => questions.delete(id)),
      joined: 0
    };
    questions.set(id, entry);
    return entry.verdict;
  }
});
