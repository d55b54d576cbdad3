import { describe, expect, it } from "vitest";
import * as z from "zod";
import { RoostError } from "../errors";
import type { ChatTurn } from "../tree/types";
import { judge, judgeMessages, readJson } from "./judge";
import type { Judges, Verdict } from "./judges";
import { lendJudges } from "./judges";
import type { StepRewardArgs } from "./types";
import { defineRubric } from "./weighted-sum";

const args = {
  action: { role: "assistant", content: "42" },
  observations: [],
  ctx: { hidden: { get: () => "42" } } as never,
  step: 2
} as StepRewardArgs;

/** Judges over a list of answers, keeping verdicts in a map as a session would. */
const judgesOf = (answers: string[]) => {
  const kept = new Map<string, Verdict>();
  const asked: ChatTurn[][] = [];
  const judges: Judges = {
    model: () => ({
      name: "m",
      ask: async (messages, check) => {
        asked.push(messages);
        const text = answers.shift() ?? "";
        check(text);
        return text;
      }
    }),
    recall: (key) => kept.get(JSON.stringify(key)),
    keep: (key, verdict) => kept.set(JSON.stringify(key), verdict)
  };
  return { judges, kept, asked };
};

describe("judge", () => {
  it("refuses bad options when the rubric is defined", () => {
    expect(() => judge({ prompt: () => "x", attempts: 0 })).toThrow(RoostError);
    expect(() => judge({ prompt: () => "x", attempts: 1.5 })).toThrow(
      RoostError
    );
    expect(() => judge({ prompt: () => "x", timeoutMs: -1 })).toThrow(
      RoostError
    );
    expect(() => judge({ prompt: "x" as never })).toThrow(RoostError);
  });

  it("is a component error where no runtime lent judges a model", async () => {
    const scored = await defineRubric({
      j: judge({ prompt: () => "Grade." })
    }).score(args);
    expect(scored.entries).toEqual([
      [
        "j",
        {
          value: 0,
          error: expect.stringContaining("no judge model configured")
        }
      ]
    ]);
  });

  it("keys its verdict by step and path, and reuses it for the same question", async () => {
    const { judges, kept, asked } = judgesOf(['{"score": 0.5}']);
    const rubric = defineRubric({
      outer: defineRubric({ j: judge({ prompt: () => "Grade." }) })
    });
    const lent = lendJudges(args, judges, 2);
    expect((await rubric.score(lent)).value).toBe(0.5);
    expect((await rubric.score(lent)).value).toBe(0.5);
    expect(asked).toHaveLength(1);
    const [key] = [...kept.keys()].map((k) => JSON.parse(k));
    expect(key).toMatchObject({ step: 2, path: "outer.j" });
    expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("scores with its own schema and score function", async () => {
    const { judges } = judgesOf(['{"verdict": "pass"}']);
    const j = judge({
      prompt: () => "Pass or fail?",
      schema: z.object({ verdict: z.enum(["pass", "fail"]) }),
      score: ({ verdict }) => verdict === "pass"
    });
    const scored = await defineRubric({ j }).score(lendJudges(args, judges, 1));
    expect(scored.value).toBe(1);
  });

  it("tells the model the schema, after the prompt's own system text", () => {
    const [system, user] = judgeMessages(
      { system: "Be strict.", user: "Grade this." },
      z.object({ score: z.number().min(0).max(1) })
    );
    expect(
      system!.content.startsWith("Be strict.\n\nAnswer with only a JSON object")
    ).toBe(true);
    expect(system!.content).toContain('"maximum":1');
    expect(user).toEqual({ role: "user", content: "Grade this." });
    expect(() => judgeMessages("  ", z.object({}))).toThrow("empty");
  });
});

describe("readJson", () => {
  // Its wrappings (fences, think blocks, prose) are json-in-prose.test.ts's.
  it("reads the object a model wrapped", () => {
    expect(readJson('<think>{"no": 1}</think>{"score": 1}')).toEqual({
      score: 1
    });
  });

  it("says what was wrong with an answer that holds no object", () => {
    expect(() => readJson("[1, 2]")).toThrow(
      "the judge's answer holds no JSON object (6 characters of text)"
    );
    expect(() => readJson("no")).toThrow("holds no JSON object");
  });
});
