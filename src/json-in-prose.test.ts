import { describe, expect, it } from "vitest";
import { isJsonObject, jsonInProse } from "./json-in-prose";

// Every wrapping a judge, a decision tree or a group judge met in a
// model's answer, read by the one reader all three use.
describe("jsonInProse", () => {
  const decision = { function_name: "count", function_inputs: {} };
  const text = JSON.stringify(decision);

  it("reads an answer that is JSON as it is", () => {
    expect(jsonInProse('{"score": 1}')).toEqual({ score: 1 });
    expect(jsonInProse("  [1, 2] ")).toEqual([1, 2]);
    expect(jsonInProse("42")).toBe(42);
  });

  it("reads a fenced block, with or without a language tag", () => {
    expect(jsonInProse('```json\n{"score": 1}\n```')).toEqual({ score: 1 });
    expect(jsonInProse(`\`\`\`\n${text}\n\`\`\``)).toEqual(decision);
    expect(jsonInProse(`\`\`\`JSON\n${text}\n\`\`\``)).toEqual(decision);
    expect(jsonInProse(`\`\`\`jsonc\n${text}\n\`\`\``)).toEqual(decision);
    expect(
      jsonInProse(`Here it is:\n\`\`\`json\n${text}\n\`\`\`\nHope that helps.`)
    ).toEqual(decision);
  });

  it("leaves out a think block, braces and all", () => {
    expect(jsonInProse('<think>{"no": 1}</think>{"score": 1}')).toEqual({
      score: 1
    });
    expect(
      jsonInProse(`<think>hmm {x}</think>Here you go: ${text} done`)
    ).toEqual(decision);
  });

  it("finds the object amid prose, from its first brace to its last", () => {
    expect(jsonInProse('I think {"score": 0.5, "reason": "ok"} fits.')).toEqual(
      { score: 0.5, reason: "ok" }
    );
    expect(
      jsonInProse(
        'Sure: {"scores": [{"trajectory_id": "1", "score": 1, "explanation": "best"}]}'
      )
    ).toEqual({
      scores: [{ trajectory_id: "1", score: 1, explanation: "best" }]
    });
  });

  it("keeps a string that holds JSON a string, for the caller to read again", () => {
    expect(jsonInProse(JSON.stringify(text))).toBe(text);
  });

  it("takes only what the caller accepts, trying the next candidate", () => {
    expect(jsonInProse("[1, 2]", isJsonObject)).toBeUndefined();
    expect(jsonInProse('[{"b": 2}]', isJsonObject)).toEqual({ b: 2 });
  });

  it("answers undefined when the answer holds no JSON", () => {
    for (const answer of [
      "no",
      "not json at all",
      '{"function_name": ',
      "",
      "<think>{}</think>"
    ])
      expect(jsonInProse(answer, isJsonObject)).toBeUndefined();
  });
});
