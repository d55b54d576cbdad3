/**
 * @module `judge({ prompt })`: a reward component that asks a configured
 * model for a verdict, parses it with a schema, and keeps it per episode
 * and step, so a retried step never pays for the same question twice.
 */

import * as z from "zod";
import { RoostError } from "../errors";
import { describeIssues } from "../issues";
import type { JsonObject, JsonValue } from "../json";
import { answerText, isJsonObject, jsonInProse } from "../json-in-prose";
import { lazy } from "../lazy";
import type { ChatTurn } from "../tree/types";
import { scoringOf, type Verdict } from "./judges";
import type { RewardFn, StepRewardArgs } from "./types";

/** A judge's prompt: the user's message, with a system message before it if wanted. */
export interface JudgePrompt {
  system?: string;
  user: string;
}

/** What a judge answers by default: a score in [0, 1] and, if it likes, why. */
export interface DefaultVerdict {
  score: number;
  reason?: string | undefined;
}

export const DefaultVerdictSchema = lazy(() =>
  z.object({
    score: z.number().min(0).max(1),
    reason: z.string().optional()
  })
);

export interface JudgeOptions<Args, Parsed> {
  /**
   * The question, from the same args any reward function gets: it may
   * read `ctx.hidden` (a reference answer the model never sees) and, in a
   * step rubric, the step's `action`. The judge adds to it the JSON
   * schema its answer must follow.
   */
  prompt(args: Args): string | JudgePrompt | Promise<string | JudgePrompt>;
  /** What the answer must parse to (a JSON object); default `{ score: number in [0, 1], reason?: string }`. */
  schema?: z.ZodType<Parsed>;
  /** The component's value from the parsed answer; default its `score`. */
  score?(parsed: Parsed): number | boolean;
  /**
   * A model the deployment configured (`createRoost({ models })`'s names,
   * `openai`, `workers-ai`); default the deployment's default. Never a
   * client's choice: it is written here, in the environment's code.
   */
  model?: string;
  /** Tries in all, the first included: a failed call or an answer off the schema is asked again. Default 3. */
  attempts?: number;
  /** Limit on one try, in ms. Default 30 s. */
  timeoutMs?: number;
}

export const DEFAULT_JUDGE_ATTEMPTS = 3;
export const DEFAULT_JUDGE_TIMEOUT_MS = 30_000;

const NO_MODEL =
  "no judge model configured: set ROOST_MODEL_BASE_URL and ROOST_MODEL, or give createRoost a model under { models }";

/**
 * A reward component whose value a model gives: usable wherever a reward
 * function is (defineRubric, weightedSum, gate, sequence, an episode
 * rubric). A failure (no model, the server failing every try, an answer
 * that is not JSON or off the schema) is the component's error in the
 * step's report, as a throwing function's is; the step goes on.
 *
 * The verdict's text is not reported: `reward_components` is read by
 * whoever may watch the session, and a judge's reasoning may quote the
 * reference answer. It stays with the kept verdict, in the session's
 * storage.
 *
 * @example
 * judge({
 *   prompt: ({ action, ctx }) =>
 *     `Reference: ${ctx.hidden.get("reference")}\nAnswer: ${action.content}\nScore how well the answer matches the reference.`
 * })
 */
export const judge = <Args = StepRewardArgs, Parsed = DefaultVerdict>(
  options: JudgeOptions<NoInfer<Args>, Parsed>
): RewardFn<Args> => {
  const attempts = options.attempts ?? DEFAULT_JUDGE_ATTEMPTS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_JUDGE_TIMEOUT_MS;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new RoostError(
      "invalid_request",
      "A judge's attempts must be a whole number of at least 1."
    );
  }
  if (!(timeoutMs > 0 && Number.isFinite(timeoutMs))) {
    throw new RoostError(
      "invalid_request",
      "A judge's timeoutMs must be a positive number of milliseconds."
    );
  }
  if (typeof options.prompt !== "function") {
    throw new RoostError(
      "invalid_request",
      "A judge needs a prompt: a function of the reward args."
    );
  }
  const schema = () =>
    options.schema ?? (DefaultVerdictSchema() as unknown as z.ZodType<Parsed>);
  const score =
    options.score ?? ((parsed: Parsed) => (parsed as DefaultVerdict).score);
  return async (args) => {
    const scoring = scoringOf(args);
    const model = scoring?.judges.model(options.model, {
      attempts,
      timeoutMs
    });
    if (scoring === undefined || model === undefined) {
      throw new Error(
        options.model === undefined
          ? NO_MODEL
          : `no judge model "${options.model}" is configured`
      );
    }
    const messages = judgeMessages(await options.prompt(args), schema());
    const key = {
      step: scoring.step,
      path: scoring.path,
      // The configured name too: two entries of `models` may build models
      // of one name (same model id, other endpoint or temperature).
      hash: await sha256(
        JSON.stringify([options.model ?? null, model.name, messages])
      )
    };
    // A kept verdict is parsed again: a schema refined since (a rule JSON
    // Schema cannot show) may refuse it, and then the model is asked anew.
    const kept = scoring.judges.recall(key);
    const again =
      kept === undefined ? undefined : schema().safeParse(kept.value);
    if (again?.success) return score(again.data);
    const ask = async (): Promise<Verdict> => {
      let value: JsonValue | undefined;
      const text = await model.ask(messages, (answer) => {
        value = readJson(answer);
        readVerdict(value, schema());
      });
      const verdict = { value: value!, text, model: model.name };
      scoring.judges.keep(key, verdict);
      return verdict;
    };
    // The same question asked now by another caller (a concurrent
    // rescore) is answered once: the second waits for the first's verdict.
    const verdict = await (scoring.judges.once?.(key, ask) ?? ask());
    return score(readVerdict(verdict.value, schema()));
  };
};

/** The judge's messages: the prompt, and what its answer must look like. */
export const judgeMessages = (
  prompt: string | JudgePrompt,
  schema: z.ZodType
): ChatTurn[] => {
  const { system, user } =
    typeof prompt === "string" ? { system: undefined, user: prompt } : prompt;
  if (typeof user !== "string" || user.trim() === "") {
    throw new Error("the judge's prompt is empty");
  }
  const format = formatOf(schema);
  return [
    {
      role: "system",
      content: [system, format].filter((s) => s !== undefined).join("\n\n")
    },
    { role: "user", content: user }
  ];
};

const formatOf = (schema: z.ZodType): string => {
  let json: string | undefined;
  try {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
      io: "input",
      unrepresentable: "any"
    });
    json = JSON.stringify(rest);
  } catch {
    // Not every schema has a JSON Schema (a custom type); the answer is
    // still checked against it.
    json = undefined;
  }
  return json === undefined
    ? "Answer with only a JSON object, no other text."
    : `Answer with only a JSON object, no other text, that follows this JSON schema:\n${json}`;
};

/** The JSON object in a judge's answer: bare, in a ```json fence, or amid prose. */
export const readJson = (text: string): JsonObject => {
  const value = jsonInProse(text, isJsonObject);
  if (value !== undefined) return value as JsonObject;
  // Its length only: the answer's words may quote the reference it was
  // shown, and this message is a component error every observer reads.
  throw new Error(
    `the judge's answer holds no JSON object (${answerText(text).length} characters of text)`
  );
};

const readVerdict = <Parsed>(
  value: JsonValue,
  schema: z.ZodType<Parsed>
): Parsed => {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new Error(
      `the judge's answer does not fit its schema: ${describeIssues(parsed.error.issues)}`
    );
  }
  return parsed.data;
};

const sha256 = async (text: string): Promise<string> => {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text)
  );
  return [...new Uint8Array(digest)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
};
