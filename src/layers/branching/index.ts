/**
 * @module The branching layer: forks at a past step of an episode
 * (`POST …/fork` with `step`, the socket's and the client's too), for
 * environments defined `branchable`. Their commits record what a replay
 * of the log needs beside it (the task, the hidden store's changes), and
 * their copies carry the episode's history, so a copy branches in turn.
 * A worker without it records nothing of the kind, and a fork with
 * `step` is refused naming this layer.
 */

import type { Layer } from "../../http/layer";
import { recordForReplay } from "../../session/replay-capture";
import { checkRewind, rewindSnapshot } from "./rewind";
import { snapshotHistory } from "./snapshot";

export const branching = (): Layer => ({
  name: "branching",
  attach: ({ runtime }) => {
    runtime.shared.branching = {
      check: checkRewind,
      rewind: rewindSnapshot,
      history: snapshotHistory
    };
    recordForReplay(runtime, (environment) => environment.branchable === true);
  }
});
