/**
 * @module The scripted calculator solver with three kinds of task, for
 * curriculum tests and the bench: by dataset index, i % 3 = 0 is always
 * solved, 1 never (its answer is sent off by one), and 2 sometimes, as
 * `mixed()` decides per episode. It knows a question's index by looking it
 * up among the first `count` problems, as a model that has learned some
 * kinds of problem and not others would in effect behave.
 */
import { type ActionInput, callTool, type Policy } from "roost-edge/client";
import { makeProblem } from "../../../examples/calculator/problems";
import { scriptedPolicy } from "../../../examples/scripted-policy/index";

export type Tier = "solved" | "failed" | "mixed";

export const tierOf = (index: number): Tier =>
  (["solved", "failed", "mixed"] as const)[index % 3]!;

export const tieredPolicy = (options: {
  count: number;
  /** Whether this episode solves its mixed task. */
  mixed: () => boolean;
}): Policy => {
  const questions = Array.from(
    { length: options.count },
    (_, i) => makeProblem(i).question
  );
  return async (observations, tools, history) => {
    const action = (await scriptedPolicy(
      observations,
      tools,
      history
    )) as ActionInput;
    const call = action.tool_calls?.[0];
    if (call?.function.name !== "submit_answer") return action;
    const text = JSON.stringify(
      [...history, ...observations].filter((m) => m.role === "user")
    );
    const index = questions.findIndex((q) =>
      text.includes(JSON.stringify(q).slice(1, -1))
    );
    const tier = index === -1 ? "solved" : tierOf(index);
    if (tier === "solved" || (tier === "mixed" && options.mixed()))
      return action;
    const args = call.function.arguments as { answer: number };
    return callTool(call.id, "submit_answer", { answer: args.answer + 1 });
  };
};

/** Mixed tasks solved on every other submission: half of each even group, deterministically. */
export const alternating = (): (() => boolean) => {
  let calls = 0;
  return () => calls++ % 2 === 0;
};

/** What the rollout CLI loads: the first six problems, mixed ones alternating. */
export const policy = tieredPolicy({ count: 6, mixed: alternating() });
