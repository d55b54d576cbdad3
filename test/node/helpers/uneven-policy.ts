/**
 * @module The scripted calculator solver made uneven on purpose, for group
 * tests: of the questions in the order first seen, the 1st, 3rd, … are
 * always answered right (a group with no spread), and for the 2nd, 4th, …
 * every submission after the first is wrong and sent as text (one right,
 * the rest wrong: a group with spread, and a `format` metric of 0).
 */
import { type ActionInput, callTool, type Policy } from "roost-edge/client";
import { scriptedPolicy } from "../../../examples/scripted-policy/index";

export const unevenPolicy = (): Policy => {
  const questions: string[] = [];
  const submissions = new Map<string, number>();
  return async (observations, tools, history) => {
    const action = (await scriptedPolicy(
      observations,
      tools,
      history
    )) as ActionInput;
    const call = action.tool_calls?.[0];
    const question = JSON.stringify(
      [...history, ...observations].find((m) => m.role === "user")?.content
    );
    if (!questions.includes(question)) questions.push(question);
    if (call?.function.name !== "submit_answer") return action;
    const seen = submissions.get(question) ?? 0;
    submissions.set(question, seen + 1);
    if (questions.indexOf(question) % 2 === 0 || seen === 0) return action;
    const args = call.function.arguments as { answer: number };
    return callTool(call.id, "submit_answer", {
      answer: String(args.answer + 1)
    });
  };
};

/** What the rollout CLI loads: one policy per process, so one order of questions. */
export const policy = unevenPolicy();
