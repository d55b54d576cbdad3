import { describe, expect, it } from "vitest";
import { calculator, isCorrect } from "../../examples/calculator/index";
import {
  CalculatorError,
  evaluate,
  formatNumber,
  MAX_EXPRESSION_LENGTH
} from "../../examples/calculator/parse";
import { makeProblem, PROBLEM_COUNT } from "../../examples/calculator/problems";
import { createLocalSession } from "../../src/index";
import { toolCalls } from "../../src/messages/build";
import {
  action,
  call,
  createResetSession,
  createSession,
  errorOf,
  json,
  send,
  withScope
} from "./helpers";

describe("calculator parser", () => {
  it.each([
    ["2 + 3 * 4", 14],
    ["(2 + 3) * 4", 20],
    ["10 - 4 - 3", 3],
    ["100 / 10 / 5", 2],
    ["2 ^ 3 ^ 2", 512],
    ["2 ** 3 ** 2", 512],
    ["(2 ^ 3) ^ 2", 64],
    ["2 * 3 ^ 2", 18],
    ["-2 ^ 2", -4],
    ["(-2) ^ 2", 4],
    ["2 ^ -1", 0.5],
    ["--3", 3],
    ["3 - -2", 5],
    ["2 * -3", -6],
    ["+4", 4],
    ["-(4 + 1) * 2", -10],
    ["1.5 * 4", 6],
    [".5 + 1.", 1.5],
    ["12 × 3 ÷ 4 − 1", 8],
    ["  7\t*\n6 ", 42],
    ["((((1))))", 1],
    ["0 / 5", 0]
  ])("evaluates %s to %d", (expression, expected) => {
    expect(evaluate(expression)).toBe(expected);
  });

  it.each([
    ["1 / 0", /Division by zero/],
    ["1 / (2 - 2)", /Division by zero/],
    ["", /empty/],
    ["   ", /empty/],
    ["2 +", /ends too early/],
    ["(1 + 2", /Missing "\)"/],
    ["1 + 2)", /Unexpected "\)" at position 6/],
    ["2 3", /Unexpected "3" at position 3/],
    ["* 2", /Unexpected "\*"/],
    ["2 ^", /ends too early/],
    ["sqrt(4)", /Unexpected character "s" at position 1/],
    ["1e5", /Unexpected character "e"/],
    ["2 % 3", /Unexpected character "%"/],
    ["9 ^ 999", /not a finite number/],
    ["0 ^ -1", /not a finite number/],
    ["(0 - 8) ^ (1 / 3)", /not a finite number/],
    [`1${"+1".repeat(100)}`, /limit is 200/]
  ])("rejects %j", (expression, message) => {
    expect(() => evaluate(expression)).toThrow(CalculatorError);
    expect(() => evaluate(expression)).toThrow(message);
  });

  it("accepts an expression of exactly the maximum length", () => {
    const expression = `1${"+1".repeat(99)} `;
    expect(expression).toHaveLength(MAX_EXPRESSION_LENGTH);
    expect(evaluate(expression)).toBe(100);
  });

  it("formats results without binary rounding noise", () => {
    expect(formatNumber(evaluate("0.1 + 0.2"))).toBe("0.3");
    expect(formatNumber(evaluate("1 / 3"))).toBe("0.333333333333");
    expect(formatNumber(evaluate("8 / 2"))).toBe("4");
    expect(formatNumber(evaluate("-0 * 5"))).toBe("0");
  });
});

describe("calculator dataset", () => {
  it("gives the same task for the same index, whatever was generated before", () => {
    const dataset = calculator.dataset!;
    expect(dataset.size).toBe(PROBLEM_COUNT);
    const first = dataset.get(123);
    for (const i of [0, 4999, 7, 122, 124]) dataset.get(i);
    expect(dataset.get(123)).toEqual(first);
    expect(makeProblem(123)).toEqual(makeProblem(123));
    expect(Object.keys(first!).sort()).toEqual(["answer", "question"]);
  });

  it("varies the problems", () => {
    const questions = new Set(
      Array.from({ length: 100 }, (_, i) => makeProblem(i).question)
    );
    expect(questions.size).toBeGreaterThan(95);
    // One word that only its template uses: all five templates occur.
    for (const word of ["change", "cookies", "train", "garden", "jacket"]) {
      expect(
        [...questions].some((q) => q.includes(word)),
        word
      ).toBe(true);
    }
  });

  it("has a finite whole answer that its own expression reproduces, for every task", () => {
    for (let i = 0; i < PROBLEM_COUNT; i++) {
      const p = makeProblem(i);
      expect(Number.isSafeInteger(p.answer), `task ${i}`).toBe(true);
      expect(p.answer, `task ${i}`).toBeGreaterThanOrEqual(0);
      expect(evaluate(p.expression), `task ${i}: ${p.expression}`).toBe(
        p.answer
      );
      expect(
        calculator.task.safeParse(calculator.dataset!.get(i)).success
      ).toBe(true);
    }
  });

  it("refuses an index outside the set", () => {
    expect(() => makeProblem(PROBLEM_COUNT)).toThrow(RangeError);
    expect(() => makeProblem(-1)).toThrow(RangeError);
    expect(() => makeProblem(1.5)).toThrow(RangeError);
  });
});

describe("calculator grading", () => {
  it("uses a relative tolerance, absolute near zero", () => {
    expect(isCorrect(1_000_000.5, 1_000_000)).toBe(true);
    expect(isCorrect(1_000_002, 1_000_000)).toBe(false);
    expect(isCorrect(0.0000005, 0)).toBe(true);
    expect(isCorrect(0.01, 0)).toBe(false);
    expect(isCorrect(-42, 42)).toBe(false);
  });

  it("accepts an answer sent as text and lets a malformed one be retried", async () => {
    const s = createLocalSession(calculator);
    await s.reset({ task: { question: "What is 1000 + 250?", answer: 1250 } });
    const bad = await s.step(
      toolCalls({ name: "submit_answer", arguments: { answer: "about 1250" } })
    );
    expect(bad.observations[0]).toMatchObject({ is_error: true });
    expect(bad.observations[0]!.content).toContain("is not a number");
    expect(bad.done).toBe(false);
    const good = await s.step(
      toolCalls({ name: "submit_answer", arguments: { answer: " 1,250 " } })
    );
    // Right, but sent as text: the format metric says so, and costs nothing.
    expect(good).toMatchObject({
      reward: 1,
      done: true,
      reward_components: { exact: 1, format: 0 }
    });
    expect(bad.reward_components).toEqual({ exact: 0, format: 0 });
  });
});

interface Step {
  observations: { content: string; is_error?: boolean }[];
  reward: number;
  reward_components?: Record<string, unknown>;
  done: boolean;
}

/** An index whose answer does not occur in its question as text. */
const revealingNothing = (): number => {
  for (let i = 0; ; i++) {
    const p = makeProblem(i);
    if (!p.question.includes(String(p.answer))) return i;
  }
};

describe("calculator over HTTP", () => {
  it("shows the question only, survives bad expressions and grades a right answer", async () => {
    const index = revealingNothing();
    const problem = makeProblem(index);
    const s = await createSession({
      environment: "calculator",
      task_index: index
    });
    const reset = await s.call("/reset", send("POST", {}));
    expect(reset.status).toBe(200);
    const body = await json<{
      observations: { role: string; content: string }[];
      tools: { function: { name: string } }[];
    }>(reset);
    expect(body.observations).toHaveLength(1);
    expect(body.observations[0]!.content).toContain(problem.question);
    expect(body.observations[0]!.content).not.toContain(String(problem.answer));
    expect(body.tools.map((t) => t.function.name)).toEqual([
      "calculator",
      "submit_answer"
    ]);

    // The model reads what to fix (the calculator's own message), and the
    // step's event says it was not an exception of the environment's code.
    for (const [expression, says] of [
      ["2 +* 3", /^Unexpected "\*" at position 4\.$/],
      ["1 / 0", /^Division by zero\.$/],
      ["x".repeat(201), /characters long; the limit is 200\.$/]
    ] as const) {
      const bad = await json<Step>(
        await s.call(
          "/step",
          send("POST", action("calculator", { expression }))
        )
      );
      expect(bad.observations[0]).toMatchObject({ is_error: true });
      expect(bad.observations[0]!.content).toMatch(says);
      expect(bad).toMatchObject({ reward: 0, done: false });
    }
    const finished = (
      await json<{ events: { type: string; [field: string]: unknown }[] }>(
        await s.call("/events?after=0&limit=100")
      )
    ).events.filter((e) => e.type === "tool.finished");
    expect(finished.length).toBeGreaterThanOrEqual(3);
    for (const e of finished.slice(-3)) {
      expect(e.is_error).toBe(true);
      expect(e.exception).toBeUndefined();
    }
    const worked = await json<Step>(
      await s.call(
        "/step",
        send("POST", action("calculator", { expression: problem.expression }))
      )
    );
    expect(worked.observations[0]).toMatchObject({
      content: String(problem.answer),
      is_error: false
    });

    const submitted = await json<Step>(
      await s.call(
        "/step",
        send("POST", action("submit_answer", { answer: problem.answer }))
      )
    );
    expect(submitted).toMatchObject({
      reward: 1,
      done: true,
      reward_components: { exact: 1, format: 1 }
    });
    expect(submitted.observations[0]!.content).toBe("Correct.");
    expect(await json(await s.call(""))).toMatchObject({
      steps: 5,
      return: 1,
      done: true
    });
    const after = await s.call(
      "/step",
      send("POST", action("calculator", { expression: "1 + 1" }))
    );
    expect(after.status).toBe(409);
    expect((await errorOf(after)).code).toBe("episode_not_running");
  });

  it("ends with reward 0 for a wrong answer", async () => {
    const problem = makeProblem(42);
    const s = await createResetSession({
      environment: "calculator",
      task_index: 42
    });
    const submitted = await json<Step>(
      await s.call(
        "/step",
        send("POST", action("submit_answer", { answer: problem.answer + 1 }))
      )
    );
    expect(submitted).toMatchObject({
      reward: 0,
      done: true,
      reward_components: { exact: 0, format: 1 }
    });
    expect(submitted.observations[0]!.content).toBe("Incorrect.");
  });

  it("re-scores a finished episode with its own rubric exactly, and with partial credit", async () => {
    const problem = makeProblem(7);
    const s = await createResetSession({
      environment: "calculator",
      task_index: 7
    });
    const wrong = problem.answer + Math.max(1, Math.abs(problem.answer));
    const answered = await json<Step>(
      await s.call(
        "/step",
        send("POST", action("submit_answer", { answer: wrong }))
      )
    );
    expect(answered).toMatchObject({ reward: 0, done: true });
    const grader = await withScope(s, "grade");
    const rescore = async (rubric: string) => {
      const res = await grader.call("/rescore", send("POST", { rubric }));
      expect(res.status).toBe(200);
      return json<{
        episodes: {
          steps: { rescored: { total: number; components: unknown } }[];
        }[];
      }>(res);
    };
    const same = await rescore("rubric");
    expect(same.episodes[0]!.steps[0]!.rescored.components).toEqual(
      answered.reward_components
    );
    // Off by the answer's size: half credit.
    const partial = await rescore("partial");
    expect(partial.episodes[0]!.steps[0]!.rescored).toEqual({
      total: 0.5,
      components: { close: 0.5 }
    });
  });

  it("refuses a task index past the dataset", async () => {
    const res = await call(
      "/v1/sessions",
      send("POST", { environment: "calculator", task_index: PROBLEM_COUNT })
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toContain("out of range");
  });
});
