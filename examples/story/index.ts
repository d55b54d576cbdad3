import { defineEnvironment, defineState, toolCalls } from "roost-edge/core";
import * as z from "zod";

export const story = defineEnvironment({
  name: "story",
  description: "Write a five-word story and print it.",
  task: z
    .object({ topic: z.string().default("frogs") })
    .default({ topic: "frogs" }),
  state: defineState({ printed: { type: z.array(z.string()).default([]) } }),
  tools: (tool) => ({
    print_story: tool({
      description: "Print a story.",
      input: z.object({ story: z.string().describe("The story to print.") }),
      run: ({ story }, ctx) => {
        ctx.state.set("printed", story);
        ctx.episode.end({ reward: story.split(/\s+/).length === 5 ? 1 : 0 });
        return `Printed: ${story}`;
      }
    })
  }),
  reset: ({ task }) =>
    `Write a 5 word story about ${task.topic} and call print_story.`,
  // `roost-edge validate`'s reference policy: any five words earn 1.
  validation: {
    oracle: (task) => () =>
      toolCalls({
        name: "print_story",
        arguments: { story: `${task.topic} leapt, then slept soundly.` }
      })
  }
});
