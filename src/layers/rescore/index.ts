/**
 * @module The re-scoring layer: `POST …/rescore` applies a registered
 * rubric again to a session's retained episodes, exactly as they were
 * scored. It records, in each commit of an environment with rescoring
 * rubrics, what a replay needs (the task, the hidden store's changes, each
 * step's place): a worker without it writes none of that.
 */

import type { Layer } from "../../http/layer";
import { recordForReplay } from "../../session/replay-capture";
import { rescore as rescoreOperation } from "./operation";
import { rescoreRoutes } from "./routes";

// Re-exported so the declarations of `roost-edge/layers/rescore` load the
// file that declares it in LayerOperations.
export { rescoreOperation };

export const rescore = (): Layer => ({
  name: "rescore",
  routes: rescoreRoutes,
  operations: { rescore: rescoreOperation },
  // Where the branching layer records a branchable environment's commits,
  // they are recorded once, by it.
  attach: ({ runtime }) =>
    recordForReplay(
      runtime,
      (environment) =>
        environment.rubrics !== undefined &&
        !(
          environment.branchable === true &&
          runtime.shared.branching !== undefined
        )
    )
});
