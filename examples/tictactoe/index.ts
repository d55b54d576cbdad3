/**
 * @module Tic-tac-toe for two agents, x and o, in one session: the
 * multi-agent example. Each agent is told only what it must know (its
 * own moves' results, the other's last move), takes its turn with `mark`,
 * and is rewarded on its own: 1 for a win, -1 for a loss, 0 for a draw.
 */

import { defineEnvironment, defineState, toolCalls } from "roost-edge/core";
import * as z from "zod";

type Mark = "x" | "o";

const LINES = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6]
] as const;

/** The mark holding a full line, if one does. */
export const winner = (board: string): Mark | undefined => {
  for (const [a, b, c] of LINES) {
    const m = board[a];
    if (m !== "." && m === board[b] && m === board[c]) return m as Mark;
  }
  return undefined;
};

/** The board in three rows, free cells numbered 1 to 9. */
const render = (board: string): string =>
  [0, 3, 6]
    .map((row) =>
      [0, 1, 2]
        .map((col) => {
          const i = row + col;
          return board[i] === "." ? String(i + 1) : board[i];
        })
        .join(" ")
    )
    .join("\n");

const other = (mark: Mark): Mark => (mark === "x" ? "o" : "x");

export const tictactoe = defineEnvironment({
  name: "tictactoe",
  description:
    "Tic-tac-toe for two agents, x and o, taking turns with mark; 1 for a win, -1 for a loss, 0 for a draw.",
  agents: {
    x: { description: "Moves first.", tools: ["mark"] },
    o: { description: "Moves second.", tools: ["mark"] }
  },
  state: defineState({
    board: { type: z.string().length(9).default(".........") }
  }),
  tools: (tool) => ({
    mark: tool({
      description: "Put your mark in a free cell, 1 to 9 (rows from the top).",
      input: z.object({ cell: z.number().int().min(1).max(9) }),
      run: ({ cell }, ctx) => {
        const me = ctx.agent as Mark;
        const board = ctx.state.get("board");
        const mine = [...board].filter((c) => c === me).length;
        const theirs = [...board].filter((c) => c === other(me)).length;
        // One mark a turn: x moves when both have as many, o when x has one more.
        if (mine > theirs || (me === "o" && mine === theirs))
          return "You have marked a cell this turn already.";
        if (board[cell - 1] !== ".")
          return `Cell ${cell} is taken:\n${render(board)}`;
        const next = board.slice(0, cell - 1) + me + board.slice(cell);
        ctx.state.set("board", next);
        return `You marked ${cell}:\n${render(next)}`;
      }
    })
  }),
  reset: () => ({
    observations: {
      x: `You are x and move first. Call mark with a free cell:\n${render(".........")}`,
      o: "You are o; x moves first."
    },
    turn: "x"
  }),
  step: async (action, ctx) => {
    const me = ctx.agent as Mark;
    const them = other(me);
    const before = ctx.state.get("board");
    const results = await ctx.executeToolCalls(action);
    const board = ctx.state.get("board");
    if (board === before) {
      return {
        observations: {
          [me]: results.length > 0 ? results : "Call mark with a free cell."
        },
        turn: me
      };
    }
    const cell = [...board].findIndex((c, i) => c !== before[i]) + 1;
    const seen = `${me} marked ${cell}:\n${render(board)}`;
    if (winner(board) === me) {
      return {
        observations: { [me]: results, [them]: `${seen}\nYou lost.` },
        rewards: { [me]: 1, [them]: -1 },
        done: true
      };
    }
    if (!board.includes(".")) {
      return {
        observations: { [me]: results, [them]: `${seen}\nA draw.` },
        done: true
      };
    }
    return {
      observations: {
        [me]: results,
        [them]: `${seen}\nYour move: call mark with a free cell.`
      },
      turn: them
    };
  },
  validation: {
    // Self-play where x takes the top row and o the middle one: x wins in
    // five moves, and the return (the acting agent's rewards) is 1.
    oracle: () => {
      const moves = [1, 4, 2, 5, 3];
      let next = 0;
      return () =>
        toolCalls({ name: "mark", arguments: { cell: moves[next++] } });
    }
  }
});
