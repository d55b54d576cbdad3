/**
 * @module The multi-agent examples, scripted: tic-tac-toe (either side,
 * the first free cell of the board it was last shown) and the support
 * desk (ask the customer, refund the order it names, say so).
 */

import {
  type ActionInput,
  callTool,
  type Message,
  messageText
} from "roost-edge/client";

/** The board as this agent was last shown it: the last three rows of cells. */
const boardOf = (messages: Message[]): string =>
  messages
    .flatMap((m) => [...messageText(m).matchAll(/^[1-9xo] [1-9xo] [1-9xo]$/gm)])
    .map((row) => row[0].replace(/ /g, ""))
    .slice(-3)
    .join("");

/** Tic-tac-toe: the first free cell (its number is on the board). */
export const markAction = (
  observations: Message[],
  history: Message[]
): ActionInput => {
  const board = boardOf([...history, ...observations]);
  const free = /[1-9]/.exec(board)?.[0] ?? "1";
  return callTool(`mark_${history.length}`, "mark", { cell: Number(free) });
};

/** The support desk: asks which order, refunds the one the customer names, then tells it. */
export const deskAction = (
  observations: Message[],
  history: Message[]
): ActionInput => {
  const all = [...history, ...observations];
  const refunded = all.some(
    (m) => m.role === "tool" && m.name === "refund" && !m.is_error
  );
  if (refunded) return { role: "assistant", content: "It is refunded." };
  const named = all
    .filter((m) => m.role === "user")
    .map((m) => /order ([A-Z]-\d+)/.exec(messageText(m))?.[1])
    .findLast((id) => id !== undefined);
  if (named === undefined)
    return { role: "assistant", content: "Which order should I refund?" };
  return callTool(`refund_${history.length}`, "refund", { order: named });
};
