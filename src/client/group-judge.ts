/**
 * @module A group judge (OpenPipe RULER's idea): one call to a chat model
 * scores a group's trajectories against each other, which needs no
 * reference answer, only a notion of "better".
 */

import * as z from "zod";
import { isJsonObject, jsonInProse } from "../json-in-prose";
import { type ChatEndpoint, requestCompletion } from "./chat-completion";
import type { ChatMessage } from "./chat-format";
import type { Trajectory } from "./trajectory";

export interface GroupJudgeOptions extends ChatEndpoint {
  model: string;
  /**
   * What makes one trajectory better than another, in the judge's words
   * (default: reaching the task's goal first, then doing it cleanly).
   */
  rubric?: string;
  /** Sampling temperature of the judge (left to the endpoint when unset). */
  temperature?: number;
  /** Characters of one message shown to the judge (default 2000); the rest is cut, saying how much. */
  maxMessageChars?: number;
  /** Characters of one trajectory (default 24000): messages from its middle are left out, saying how many. */
  maxTrajectoryChars?: number;
}

export const DEFAULT_JUDGE_RUBRIC = `- A trajectory that reaches the goal of the task scores clearly higher than one that does not.
- Between two that both reach it, or both fail, the one that got closer, made fewer mistakes and wasted fewer steps scores higher.
- Use the whole range from 0 to 1; small differences in quality deserve small differences in score.`;

const INSTRUCTIONS = (rubric: string) =>
  `You compare attempts at one task made by an AI agent. Every attempt started from the same state; the context they share is shown once, then each attempt's own messages. Score each attempt from 0 (worst) to 1 (best) relative to the others, by these criteria:
${rubric}

Answer with one JSON object and nothing else:
{"scores": [{"trajectory_id": "1", "explanation": "<one sentence>", "score": 0.0}, ...]}
with one entry for every attempt, using the ids shown.`;

/** The judge's answer, as it must parse. */
export const JudgementSchema = z.object({
  scores: z.array(
    z.object({
      trajectory_id: z.union([z.string(), z.number()]).transform(String),
      explanation: z.string().optional(),
      score: z.number().min(0).max(1)
    })
  )
});

/** One message as the judge reads it: role, text, tool calls; long texts cut with a note of what was cut. */
const render = (m: ChatMessage, max: number): string => {
  const cut = (text: string) =>
    text.length <= max
      ? text
      : `${text.slice(0, max)}… [${text.length - max} more characters cut]`;
  if (m.role === "assistant") {
    const calls = (m.tool_calls ?? []).map(
      (c) => `→ ${c.function.name}(${cut(c.function.arguments)})`
    );
    return [`[assistant] ${cut(m.content ?? "")}`, ...calls].join("\n");
  }
  const content =
    typeof m.content === "string"
      ? m.content
      : (m.content ?? [])
          .map((p) => (p.type === "text" ? p.text : `[${p.type}]`))
          .join("");
  return `[${m.role}] ${cut(content)}`;
};

/** Rendered messages within `max` characters: whole ones from both ends, the middle left out and counted. */
const bounded = (lines: string[], max: number): string => {
  const total = lines.reduce((a, l) => a + l.length + 1, 0);
  if (total <= max) return lines.join("\n");
  const head: string[] = [];
  const tail: string[] = [];
  let used = 0;
  for (let i = 0, j = lines.length - 1; i <= j; ) {
    // Alternating ends keeps how it started and how it ended.
    const takeHead = head.length <= tail.length;
    const line = takeHead ? lines[i]! : lines[j]!;
    if (used + line.length + 1 > max) break;
    used += line.length + 1;
    if (takeHead) {
      head.push(line);
      i++;
    } else {
      tail.unshift(line);
      j--;
    }
  }
  const left = lines.length - head.length - tail.length;
  return [...head, `[… ${left} messages left out …]`, ...tail].join("\n");
};

const same = (a: ChatMessage | undefined, b: ChatMessage | undefined) =>
  a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/**
 * The chat messages asking the judge to score `trajectories` (ids "1"…"n"
 * in the order given). The messages all of them start with (the reset's
 * prompt) are shown once, as RULER does, so the judge reads the
 * differences and the prompt stays short.
 */
export const judgePrompt = (
  trajectories: readonly Pick<Trajectory, "messages">[],
  options: Pick<
    GroupJudgeOptions,
    "rubric" | "maxMessageChars" | "maxTrajectoryChars"
  > = {}
): { role: "system" | "user"; content: string }[] => {
  const perMessage = options.maxMessageChars ?? 2000;
  const perTrajectory = options.maxTrajectoryChars ?? 24_000;
  const first = trajectories[0]?.messages ?? [];
  let shared = 0;
  while (
    shared < first.length &&
    trajectories.every((t) => same(t.messages[shared], first[shared]))
  )
    shared++;
  const context = bounded(
    first.slice(0, shared).map((m) => render(m, perMessage)),
    perTrajectory
  );
  const attempts = trajectories.map(
    (t, i) =>
      `<trajectory id="${i + 1}">\n${bounded(
        t.messages.slice(shared).map((m) => render(m, perMessage)),
        perTrajectory
      )}\n</trajectory>`
  );
  return [
    {
      role: "system",
      content: INSTRUCTIONS(options.rubric ?? DEFAULT_JUDGE_RUBRIC)
    },
    {
      role: "user",
      content: `<context>\n${context}\n</context>\n\n${attempts.join("\n\n")}`
    }
  ];
};

/**
 * Reads the judge's reply: JSON (bare, fenced, after a think block or
 * amid prose, as every model answer is read: json-in-prose.ts) of the shape above, with exactly one score per id 1…n.
 * Throws an Error saying what was wrong.
 */
export const parseJudgement = (
  text: string,
  count: number
): { score: number; explanation: string | null }[] => {
  const json = jsonInProse(text, isJsonObject);
  if (json === undefined)
    throw new Error(`The judge answered no JSON object: ${text.slice(0, 200)}`);
  const parsed = JudgementSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `The judge's JSON is not {scores: [{trajectory_id, score in [0, 1]}]}: ${parsed.error.issues
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")}`
    );
  }
  const byId = new Map(parsed.data.scores.map((s) => [s.trajectory_id, s]));
  const ids = Array.from({ length: count }, (_, i) => String(i + 1));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0 || parsed.data.scores.length !== count) {
    throw new Error(
      `The judge must score trajectories 1 to ${count} once each; ${missing.length > 0 ? `it left out ${missing.join(", ")}` : `it gave ${parsed.data.scores.length} scores`}.`
    );
  }
  return ids.map((id) => {
    const s = byId.get(id)!;
    return { score: s.score, explanation: s.explanation ?? null };
  });
};

/** 1 for the highest; equal scores share the better rank ("1224" competition ranking). */
export const ranks = (scores: readonly number[]): number[] =>
  scores.map((s) => 1 + scores.filter((o) => o > s).length);

/**
 * Scores one group's trajectories in place: `group_score`, `rank` and
 * `group_judge_explanation` for those that ended without an error (the
 * others get nulls: a broken episode is not ranked), `group_judge_error`
 * null. When the judge fails after its retries, or its answer does not
 * parse, every member gets the failure as `group_judge_error` and null
 * scores; nothing is thrown, so the rollout is never lost to its judge.
 */
export const judgeGroup = async (
  group: Trajectory[],
  options: GroupJudgeOptions
): Promise<void> => {
  const judged = group.filter((t) => t.error === null);
  const mark = (error: string | null) => {
    for (const t of group) {
      t.group_score = null;
      t.rank = null;
      t.group_judge_explanation = null;
      t.group_judge_error = error;
    }
  };
  if (judged.length < 2) {
    mark(
      `Nothing to rank: ${judged.length} of the group's ${group.length} episodes ended without an error.`
    );
    return;
  }
  try {
    const body = JSON.stringify({
      model: options.model,
      messages: judgePrompt(judged, options),
      ...(options.temperature === undefined
        ? {}
        : { temperature: options.temperature })
    });
    const { completion } = await requestCompletion(options, body);
    const content = completion.choices?.[0]?.message?.content;
    const scores = parseJudgement(
      typeof content === "string" ? content : "",
      judged.length
    );
    const order = ranks(scores.map((s) => s.score));
    mark(null);
    for (const [i, t] of judged.entries()) {
      t.group_score = scores[i]!.score;
      t.rank = order[i]!;
      t.group_judge_explanation = scores[i]!.explanation;
    }
  } catch (error) {
    mark(error instanceof Error ? error.message : String(error));
  }
};
