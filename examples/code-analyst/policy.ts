/**
 * @module A scripted policy for code-analyst that plays as a model would:
 * it reads the question, sends the oracle's JavaScript to `run_js`, and
 * submits the number the sandbox answered, so its reward is only as good
 * as the code's run on the server. `--policy examples/code-analyst/policy.ts`.
 */

import {
  callTool,
  type Message,
  messageText,
  type Policy
} from "roost-edge/client";
import { oracleCode, readQuestion } from "./index";

const question = (messages: Message[]): string =>
  messages
    .filter((m) => m.role === "user")
    .map(messageText)
    .join("\n");

export const policy: Policy = (observations, _tools, history) => {
  const id = `call_${history.length}`;
  const ran = observations.find(
    (m) => m.role === "tool" && m.name === "run_js"
  );
  if (ran === undefined) {
    const asked = readQuestion(question([...history, ...observations]));
    // A question it cannot read: an answer of 0, which scores 0.
    if (asked === undefined)
      return callTool(id, "submit_answer", { answer: 0 });
    return callTool(id, "run_js", { code: oracleCode(asked) });
  }
  // The tool answers JSON ({ result, stdout }) or, on an error, text.
  let answer = 0;
  try {
    const value = (JSON.parse(messageText(ran)) as { result?: unknown }).result;
    if (typeof value === "number") answer = value;
  } catch {
    // An error message: submit 0 rather than guess.
  }
  return callTool(id, "submit_answer", { answer });
};
