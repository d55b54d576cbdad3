/** @module The accumulator behind `ctx.episode`: rewards and endings a step's tools report. */

import type { EpisodeControl } from "../tools/types";

export interface EpisodeSignals {
  reward: number;
  ended: boolean;
  truncated: boolean;
}

export const createEpisodeControl = (): {
  control: EpisodeControl;
  signals: () => EpisodeSignals;
} => {
  const s: EpisodeSignals = { reward: 0, ended: false, truncated: false };
  const add = (x: number) => {
    if (!Number.isFinite(x)) {
      throw new TypeError(`A reward must be a finite number, got ${x}.`);
    }
    s.reward += x;
  };
  return {
    control: {
      end: (options) => {
        if (options?.reward !== undefined) add(options.reward);
        s.ended = true;
      },
      addReward: add,
      truncate: () => {
        s.truncated = true;
      }
    },
    signals: () => ({ ...s })
  };
};
