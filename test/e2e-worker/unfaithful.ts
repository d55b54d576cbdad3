/**
 * @module Test-only environments each broken in a way only a server shows,
 * so `roost-edge validate` passes them on local sessions and `validate
 * --url` fails exactly the check for the defect: unscramble a reversed
 * word and answer it, with a working oracle.
 */

import * as z from "zod";
import { dataset, defineEnvironment } from "../../src/core";
import { reversed, unscrambler, WORDS } from "../fixtures/unscramble";

const common = {
  description: "Unscramble a reversed word.",
  task: z.object({ word: z.string() }).default({ word: "apple" }),
  dataset: dataset({
    size: WORDS.length,
    get: (i) => ({ word: WORDS[i]! })
  }),
  maxSteps: 5,
  validation: { oracle: () => unscrambler }
};

/**
 * Hides the answer, then shows it in the viewer's frame: nothing a local
 * session plays calls `frame()`, so only a server's `/frame` shows it.
 */
export const framesAnswer = defineEnvironment({
  ...common,
  name: "frames-answer",
  tools: (tool) => ({
    answer: tool({
      description: "Answer the word; ends the episode.",
      input: z.object({ text: z.string() }),
      run: ({ text }, ctx) => {
        const right = text === ctx.hidden.get<string>("word");
        ctx.episode.end({ reward: right ? 1 : 0 });
        return right ? "Right." : "Wrong.";
      }
    })
  }),
  reset: ({ task, ctx }) => {
    ctx.hidden.set("word", task.word);
    return `Unscramble: ${reversed(task.word)}`;
  },
  frame: (ctx) => ({
    state: null,
    info: { expecting: ctx.hidden.get<string>("word") ?? null }
  })
});

/**
 * Counts wrong answers in module memory, under a slot its first answer
 * keeps in the hidden store. Each local session and each session on a
 * server gets its own slot, but a fork copies the slot, not the memory:
 * source and copy then count into one list and part ways.
 */
const wrong = new Map<string, number>();
let slots = 0;

export const forgetsOnFork = defineEnvironment({
  ...common,
  name: "forgets-on-fork",
  tools: (tool) => ({
    answer: tool({
      description: "Answer the word; a right answer ends the episode.",
      input: z.object({ text: z.string() }),
      run: ({ text }, ctx) => {
        if (text === ctx.task.word) {
          ctx.episode.end({ reward: 1 });
          return "Right.";
        }
        let slot = ctx.hidden.get<string>("slot");
        if (slot === undefined) {
          slot = `slot-${++slots}`;
          ctx.hidden.set("slot", slot);
        }
        const count = (wrong.get(slot) ?? 0) + 1;
        wrong.set(slot, count);
        return `Wrong (${count} so far).`;
      }
    })
  }),
  reset: ({ task }) => `Unscramble: ${reversed(task.word)}`
});
