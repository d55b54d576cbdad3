/** @module The environment the episode contract runs on, in memory and in a session object alike (the test worker serves it). */

import * as z from "zod";
import { defineState } from "../state/define-state";
import { defineEnvironment } from "./define-environment";

const TOOLS = ["mark", "close", "peek"] as const;

/**
 * Every rule of an episode in three tools: `mark` rewards, `close` ends,
 * `peek` reads; four steps at most; a task may name the tools its
 * episode offers. State counts marks, so a direct call shows it ran.
 */
export const tally = defineEnvironment({
  name: "tally",
  description: "Test fixture: rewards, an ending, a step limit, chosen tools.",
  task: z.object({ tools: z.array(z.enum(TOOLS)).optional() }).default({}),
  state: defineState({ marks: { type: z.number().int().default(0) } }),
  maxSteps: 4,
  tools: (tool) => ({
    mark: tool({
      description: "Adds a mark, rewarded with `reward`.",
      input: z.object({ reward: z.number().default(1) }),
      run: ({ reward }, ctx) => {
        ctx.episode.addReward(reward);
        return `marks=${ctx.state.set("marks", ctx.state.get("marks") + 1)}`;
      }
    }),
    close: tool({
      description: "Ends the episode with a reward of 10.",
      input: z.object({}),
      run: (_args, ctx) => {
        ctx.episode.end({ reward: 10 });
        return "closed";
      }
    }),
    peek: tool({
      description: "Reads the marks.",
      input: z.object({}),
      run: (_args, ctx) => `marks=${ctx.state.get("marks")}`
    })
  }),
  reset: ({ task }) =>
    task.tools === undefined
      ? "Tally ready."
      : {
          observations: `Tally ready: ${task.tools.join(", ")}.`,
          tools: task.tools
        }
});
