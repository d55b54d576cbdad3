// The client's policies: the scripted one reading the examples' questions
// to their answers, and the random one calling a listed tool the same way
// for the same seed.

import { describe, expect, it } from "vitest";
import { makeProblem, PROBLEM_COUNT } from "../../examples/calculator/problems";
import { evaluate } from "../../examples/scripted-policy/arithmetic";
import { scriptedPolicy } from "../../examples/scripted-policy/index";
import { readExpression } from "../../examples/scripted-policy/read-question";
import { readWordProblem } from "../../examples/scripted-policy/word-problems";
import { type Policy, randomPolicy } from "../../src/client/index";
import type { JsonObject } from "../../src/json";
import type { Message } from "../../src/messages/schema";
import type { OpenAITool } from "../../src/protocol/index";

const tool = (name: string, properties: JsonObject = {}): OpenAITool => ({
  type: "function",
  function: {
    name,
    description: name,
    parameters: {
      type: "object",
      properties,
      required: Object.keys(properties)
    }
  }
});

const CALCULATOR_TOOLS = [
  tool("calculator", { expression: { type: "string" } }),
  tool("submit_answer", {
    answer: { anyOf: [{ type: "number" }, { type: "string" }] }
  })
];

/** The first tool call a policy makes, whether it answers an action or a decision. */
const firstCall = async (answer: ReturnType<Policy>) => {
  const value = await answer;
  const action = "action" in value ? value.action : value;
  const call = action.tool_calls?.[0];
  return { name: call?.function.name, args: call?.function.arguments };
};

const user = (content: string): Message => ({ role: "user", content });

describe("scriptedPolicy", () => {
  it("reads every generated calculator problem to its answer", () => {
    for (let i = 0; i < PROBLEM_COUNT; i++) {
      const { question, answer } = makeProblem(i);
      const expression = readWordProblem(question) ?? readExpression(question);
      expect(evaluate(expression ?? "NaN"), question).toBeCloseTo(answer, 6);
    }
  });

  it("asks the calculator, then submits its result as a number", async () => {
    const question = user(
      "A garden is 10 m long and 6 m wide. A square patio with 2 m sides is built in it. How many square metres of garden are left?"
    );
    const first = await firstCall(
      scriptedPolicy([question], CALCULATOR_TOOLS, [])
    );
    expect(first).toEqual({
      name: "calculator",
      args: { expression: "10 * 6 - 2 ^ 2" }
    });
    const asked: Message = {
      role: "assistant",
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: {
            name: "calculator",
            arguments: first.args as Record<string, unknown>
          }
        }
      ]
    };
    const result: Message = {
      role: "tool",
      tool_call_id: "call_1",
      name: "calculator",
      content: "56"
    };
    expect(
      await firstCall(
        scriptedPolicy([result], CALCULATOR_TOOLS, [question, asked])
      )
    ).toEqual({
      name: "submit_answer",
      args: { answer: 56 }
    });
  });

  it("submits its own arithmetic when the calculator fails, and a guess when it cannot read the question", async () => {
    const question = user("What is 12 times 7?");
    const asked: Message = {
      role: "assistant",
      tool_calls: [
        {
          id: "c",
          type: "function",
          function: { name: "calculator", arguments: "{}" }
        }
      ]
    };
    const failed: Message = {
      role: "tool",
      tool_call_id: "c",
      name: "calculator",
      content: "Error",
      is_error: true
    };
    expect(
      await firstCall(
        scriptedPolicy([failed], CALCULATOR_TOOLS, [question, asked])
      )
    ).toEqual({
      name: "submit_answer",
      args: { answer: 84 }
    });
    const strings = [
      CALCULATOR_TOOLS[0]!,
      tool("submit_answer", { answer: { type: "string" } })
    ];
    expect(
      await firstCall(
        scriptedPolicy(
          [user("Guess how many: maybe 41 or 42 marbles")],
          strings,
          []
        )
      )
    ).toEqual({
      name: "submit_answer",
      args: { answer: "42" }
    });
  });

  it("counts toward the counter's target in either direction", async () => {
    const tools = [tool("incr"), tool("decr")];
    expect(
      (
        await firstCall(
          scriptedPolicy([user("Count to 3. counter=0")], tools, [])
        )
      ).name
    ).toBe("incr");
    expect(
      (
        await firstCall(
          scriptedPolicy([user("Count to 3. counter=5")], tools, [])
        )
      ).name
    ).toBe("decr");
  });

  it("writes a five-word story about the topic", async () => {
    const { args } = await firstCall(
      scriptedPolicy(
        [
          user("Write a 5 word story about dancing frogs and call print_story.")
        ],
        [tool("print_story", { story: { type: "string" } })],
        []
      )
    );
    const story = (args as { story: string }).story;
    expect(story.split(/\s+/)).toHaveLength(5);
    expect(story).toContain("dancing frogs");
  });

  it("names the tools it saw when it does not know the environment", () => {
    expect(() => scriptedPolicy([], [tool("query")], [])).toThrow(/query/);
  });
});

describe("randomPolicy", () => {
  it("calls a listed tool with the required arguments, the same way for the same seed", async () => {
    const tools = [
      tool("pick", {
        mode: { enum: ["a", "b"] },
        n: { type: "integer", minimum: 1, maximum: 3 }
      })
    ];
    const run = () => randomPolicy({ seed: 9 })([], tools, []);
    const { name, args } = await firstCall(run());
    expect(name).toBe("pick");
    const { mode, n } = args as { mode: string; n: number };
    expect(["a", "b"]).toContain(mode);
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThanOrEqual(3);
    expect(await run()).toEqual(await run());
  });
});
