/**
 * @module Small environments, each broken in one way `roost-edge validate`
 * must catch: unscramble a reversed word and answer it. Each has a working
 * oracle, so only its own defect fails a check.
 */
import { dataset, defineEnvironment } from "roost-edge/core";
import * as z from "zod";
import { reversed, unscrambler, WORDS } from "../../../fixtures/unscramble";

const task = z.object({ word: z.string() }).default({ word: "apple" });
const words = dataset({
  size: WORDS.length,
  get: (i) => ({ word: WORDS[i]! })
});

type Hidden = {
  get<T>(key: string): T | undefined;
  set(key: string, value: string): void;
};

/** The puzzle with its reset and its grading swapped in. */
const puzzle = (
  name: string,
  reset: (word: string, hidden: Hidden) => string,
  options: {
    grade?: (text: string, word: string) => boolean;
    onAnswer?: (text: string) => void;
  } = {}
) =>
  defineEnvironment({
    name,
    description: "Unscramble a reversed word.",
    task,
    dataset: words,
    maxSteps: 5,
    tools: (tool) => ({
      answer: tool({
        description: "Answer the word; ends the episode.",
        input: z.object({ text: z.string() }),
        run: ({ text }, ctx) => {
          options.onAnswer?.(text);
          const word = ctx.hidden.get<string>("word") ?? ctx.task.word;
          const right = (options.grade ?? ((t, w) => t === w))(text, word);
          ctx.episode.end({ reward: right ? 1 : 0 });
          return right ? "Right." : "Wrong.";
        }
      })
    }),
    reset: ({ task, ctx }) => reset(task.word, ctx.hidden as Hidden),
    validation: { oracle: () => unscrambler }
  });

/** A sound one, for contrast. */
export const sound = puzzle("sound", (word) => `Unscramble: ${reversed(word)}`);

let next = 0;
/** Ignores the index it is reset to: it deals its own words in turn (what dropping `reset(seed)` does). */
export const ignoresIndex = puzzle("ignores-index", (_word, hidden) => {
  const dealt = WORDS[next++ % WORDS.length]!;
  hidden.set("word", dealt);
  return `Unscramble: ${reversed(dealt)}`;
});

/** Hides the answer, then prints it for "debugging". */
export const leaksAnswer = puzzle("leaks-answer", (word, hidden) => {
  hidden.set("word", word);
  return `Unscramble: ${reversed(word)}\n(debug: expecting ${hidden.get<string>("word")})`;
});

/** Grades by prefix, so the empty answer is right. */
export const emptyScores = puzzle(
  "empty-scores",
  (word) => `Unscramble: ${reversed(word)}`,
  { grade: (text, word) => word.startsWith(text) }
);

const tried: string[] = [];
/** Remembers earlier episodes' answers in module memory and shows them at reset. */
export const keepsState = puzzle(
  "keeps-state",
  (word) =>
    `Unscramble: ${reversed(word)}\nTried before: ${tried.join(", ") || "nothing"}`,
  { onAnswer: (text) => tried.push(text) }
);

let resets = 0;
/** Numbers its resets in module memory and hides the number: a reset leaves the hidden store unlike the one before it did. */
export const countsResets = puzzle("counts-resets", (word, hidden) => {
  hidden.set("round", String(++resets));
  return `Unscramble: ${reversed(word)}`;
});

/** Shows and grades the same word whatever task it is reset to. */
export const oneTask = puzzle("one-task", (_word, hidden) => {
  hidden.set("word", "apple");
  return `Unscramble: ${reversed("apple")}`;
});

/** Declares an example its own input refuses. */
export const badExample = defineEnvironment({
  name: "bad-example",
  description: "Say a whole number.",
  tools: (tool) => ({
    say: tool({
      description: "Say a whole number.",
      input: z.object({ n: z.number().int() }).meta({ examples: [{ n: 1.5 }] }),
      run: ({ n }) => `You said ${n}.`
    })
  }),
  reset: () => "Say a whole number.",
  validation: { noOracle: "nothing to solve" }
});
