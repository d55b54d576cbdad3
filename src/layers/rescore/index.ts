/**
 * @module The re-scoring layer: `POST …/rescore` applies a registered
 * rubric again to a session's retained episodes, exactly as they were
 * scored. It records, in each commit of an environment with rescoring
 * rubrics, what a replay needs (the task, the hidden store's changes, each
 * step's place): a worker without it writes none of that.
 */

import type { Layer } from "../../http/layer";
import { rescoreItems, writeRescoreItems } from "../../storage/rescore-rows";
import { rescore as rescoreOperation } from "./operation";
import { rescoreRoutes } from "./routes";

// Re-exported so the declarations of `roost-edge/layers/rescore` load the
// file that declares it in LayerOperations.
export { rescoreOperation };

export const rescore = (): Layer => ({
  name: "rescore",
  routes: rescoreRoutes,
  operations: { rescore: rescoreOperation },
  attach: ({ runtime }) =>
    runtime.commits.capture(({ kind, environment, row, firstSeq, ...c }) => {
      if (environment.rubrics === undefined) return undefined;
      const items = rescoreItems(environment, {
        ...(kind === "reset" ? { task: row.episodeTask } : {}),
        hidden: c.hiddenChanges(),
        ...(c.step === undefined ? {} : { step: c.step })
      });
      return () =>
        writeRescoreItems(runtime.shared.sql, row.episode, firstSeq, items);
    })
});
