/**
 * @module The catalog's products answered with code: the model writes
 * JavaScript against a read-only `store` of the products (a code tool, in a
 * fresh isolate per call), then submits a number: the environment, its
 * dataset and exact-answer reward, and an oracle. `npm start` serves it
 * (examples/worker.ts); policy.ts plays it by running code.
 */

import { codeTool } from "roost-edge/code";
import { dataset, defineEnvironment, toolCalls } from "roost-edge/core";
import * as z from "zod";
import { PRODUCTS, type Product } from "../catalog/collections";

const METRICS = {
  count: { words: "How many", of: (rows: Product[]) => rows.length },
  avg_rating: {
    words: "What is the average rating of",
    of: (rows: Product[]) =>
      rows.reduce((sum, p) => sum + p.rating, 0) / rows.length
  },
  avg_price: {
    words: "What is the average price of",
    of: (rows: Product[]) =>
      rows.reduce((sum, p) => sum + p.price, 0) / rows.length
  },
  max_price: {
    words: "What is the highest price of",
    of: (rows: Product[]) => Math.max(...rows.map((p) => p.price))
  }
} as const;
type Metric = keyof typeof METRICS;

const round = (n: number) => Math.round(n * 100) / 100;

/** Every (metric, animal, category) with products, in a fixed order: the dataset. */
const QUESTIONS = (Object.keys(METRICS) as Metric[]).flatMap((metric) =>
  [...new Set(PRODUCTS.map((p) => `${p.animal}/${p.category}`))]
    .sort()
    .map((pair) => {
      const [animal, category] = pair.split("/") as [string, string];
      const rows = PRODUCTS.filter(
        (p) => p.animal === animal && p.category === category
      );
      return {
        question: `${METRICS[metric].words} ${animal} ${category} products${metric === "count" ? " are there" : ""}?`,
        metric,
        animal,
        category,
        answer: round(METRICS[metric].of(rows))
      };
    })
);

const task = z.object({
  question: z.string().min(1),
  metric: z.enum(["count", "avg_rating", "avg_price", "max_price"]),
  animal: z.string(),
  category: z.string(),
  // In the task because the session grades; a client sees it.
  answer: z.number()
});

const questions = dataset({
  size: QUESTIONS.length,
  get: (i) => QUESTIONS[i]!
});

type Asked = Pick<z.infer<typeof task>, "metric" | "animal" | "category">;

/** What a question asks, read back from its words (the scripted policy's reading); undefined if it is none of the dataset's. */
export const readQuestion = (text: string): Asked | undefined => {
  for (const [metric, { words }] of Object.entries(METRICS)) {
    const match = new RegExp(`${words} (\\w+) (\\w+) products`).exec(text);
    if (match)
      return {
        metric: metric as Metric,
        animal: match[1]!,
        category: match[2]!
      };
  }
  return undefined;
};

/** The JavaScript a careful model would write for a task (the oracle's). */
export const oracleCode = (t: Asked): string => {
  const pick = `const rows = (await store.find("catalog", "products")).flatMap((e) => e.objects).filter((p) => p.animal === ${JSON.stringify(t.animal)} && p.category === ${JSON.stringify(t.category)});`;
  const value = {
    count: "rows.length",
    avg_rating: "rows.reduce((s, p) => s + p.rating, 0) / rows.length",
    avg_price: "rows.reduce((s, p) => s + p.price, 0) / rows.length",
    max_price: "Math.max(...rows.map((p) => p.price))"
  }[t.metric];
  return `${pick}\nMath.round(${value} * 100) / 100`;
};

export const codeAnalyst = defineEnvironment({
  name: "code-analyst",
  description:
    "Questions over the catalog's products, answered by running JavaScript against the store, then submit_answer once.",
  task: task.default(QUESTIONS[0]!),
  dataset: questions,
  maxSteps: 10,
  tools: (tool) => ({
    run_js: codeTool({
      capabilities: { store: true },
      limits: { timeoutMs: 5_000 }
    }),
    submit_answer: tool({
      description:
        "Submit the answer, rounded to 2 decimals. Ends the episode: reward 1 if it is exact.",
      input: z.object({ answer: z.number() }),
      run: ({ answer }, ctx) => {
        const exact = Math.abs(answer - ctx.task.answer) < 0.005;
        ctx.episode.end({ reward: exact ? 1 : 0 });
        return exact ? "Correct." : "Incorrect.";
      }
    })
  }),
  reset: ({ task, ctx }) => {
    ctx.environment.add("catalog", {
      name: "products",
      objects: PRODUCTS.map(({ description: _d, ...p }) => p)
    });
    return `${task.question}\nThe products are in the store under ("catalog", "products"), each { id, name, category, animal, price, rating }. Compute the answer with run_js, then call submit_answer with the number, rounded to 2 decimals.`;
  },
  validation: {
    // One action: the code (as a model would write it) and the answer.
    oracle: (t) => () =>
      toolCalls(
        { name: "run_js", arguments: { code: oracleCode(t) } },
        { name: "submit_answer", arguments: { answer: t.answer } }
      )
  }
});
