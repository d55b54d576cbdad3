/**
 * @module Tic-tac-toe for two agents, x and o, in one session: the
 * multi-agent example. Each agent is told only what it must know (its
 * own moves' results, the other's last move), takes its turn with `mark`,
 * and is rewarded on its own: 1 for a win, -1 for a loss, 0 for a draw.
 */

import {
  dataset,
  defineEnvironment,
  defineState,
  type OraclePolicy,
  type Play,
  toolCalls
} from "roost-edge/core";
import * as z from "zod";

import { beatTheBot, playO } from "./bot";

export type Mark = "x" | "o";

export const LINES = [
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
export const render = (board: string): string =>
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

/** A game starts empty (opening 0) or with x's first mark in that cell. */
const task = z
  .object({ opening: z.number().int().min(0).max(9) })
  .default({ opening: 0 });

const opened = (opening: number): string =>
  opening === 0
    ? "........."
    : `${".".repeat(opening - 1)}x${".".repeat(9 - opening)}`;

/**
 * Self-play where x wins: x completes a line through its first cell while
 * o marks cells off that line.
 */
const winningMoves = (opening: number): number[] => {
  const first = opening === 0 ? 1 : opening;
  const line = LINES.find((l) => l.some((i) => i === first - 1))!;
  const rest = line.map((i) => i + 1).filter((c) => c !== first);
  const off = [1, 2, 3, 4, 5, 6, 7, 8, 9].filter(
    (c) => c !== first && !rest.includes(c)
  );
  const o = off.slice(0, 2);
  const moves = [o[0]!, rest[0]!, o[1]!, rest[1]!];
  return opening === 0 ? [first, ...moves] : moves;
};

/** The game, with o a client's (self-play) or the environment's own. */
const game = (
  name: string,
  description: string,
  o: { description: string; play?: Play },
  oracle: (opening: number) => OraclePolicy
) =>
  defineEnvironment({
    name,
    description,
    agents: {
      x: { description: "Moves first.", tools: ["mark"] },
      o: { ...o, tools: ["mark"] }
    },
    task,
    // Each opening a task, so validation's floors play ten games, not one.
    dataset: dataset({ size: 10, get: (opening) => ({ opening }) }),
    state: defineState({
      board: { type: z.string().length(9).default(".........") }
    }),
    tools: (tool) => ({
      mark: tool({
        description:
          "Put your mark in a free cell, 1 to 9 (rows from the top).",
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
    reset: ({ task, ctx }) => {
      const board = opened(task.opening);
      ctx.state.set("board", board);
      if (task.opening === 0) {
        return {
          observations: {
            x: `You are x and move first. Call mark with a free cell:\n${render(board)}`,
            o: "You are o; x moves first."
          },
          turn: "x"
        };
      }
      return {
        observations: {
          x: `You are x and opened at ${task.opening}; o moves.`,
          o: `You are o. x marked ${task.opening}:\n${render(board)}\nYour move: call mark with a free cell.`
        },
        turn: "o"
      };
    },
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
    validation: { oracle: (task) => oracle(task.opening) }
  });

export const tictactoe = game(
  "tictactoe",
  "Tic-tac-toe for two agents, x and o, taking turns with mark; 1 for a win, -1 for a loss, 0 for a draw.",
  { description: "Moves second." },
  // Self-play that x wins, so the return (the first agent's, x's) is 1.
  (opening) => {
    const moves = winningMoves(opening);
    let next = 0;
    return () =>
      toolCalls({ name: "mark", arguments: { cell: moves[next++] } });
  }
);

/**
 * The game against the environment: it plays o itself (bot.ts), so a
 * client, or any one-agent trainer, plays x alone and is answered with
 * o's reply in the same step.
 */
export const tictactoeBot = game(
  "tictactoe-bot",
  "Tic-tac-toe against a scripted o: play x with mark; 1 for a win, -1 for a loss, 0 for a draw.",
  { description: "The environment's scripted player.", play: playO },
  () => beatTheBot
);
