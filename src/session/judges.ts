/** @module What a session lends its rubrics' judges: the deployment's models and the episode's kept verdicts. */

import type { Judges } from "../rewards/judges";
import { judgeModel } from "../runner/judge-model";
import { hasTable } from "../storage/tables";
import { readVerdict, writeVerdict } from "../storage/verdict-rows";
import type { ModelResolver } from "./models";

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
  }
});
