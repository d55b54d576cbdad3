/**
 * @module The environment's own o for `tictactoe-bot`: it takes the first
 * free cell from the top, which is predictable enough for x to beat from
 * every opening. `beatTheBot` is the validator's x, found by searching
 * the game against that rule.
 */

import { type OraclePolicy, type Play, toolCalls } from "roost-edge/core";
import { winner } from "./index";

const firstFree = (board: string): number => board.indexOf(".") + 1;

/**
 * o's move: the first free cell, read from the shared board. The call's id
 * is the cell's, not a random one, so a game replays exactly.
 */
export const playO: Play = ({ ctx }) => {
  const cell = firstFree(ctx.state.get("board") as string);
  return toolCalls({ name: "mark", arguments: { cell }, id: `o-${cell}` });
};

const put = (board: string, cell: number, mark: string): string =>
  board.slice(0, cell - 1) + mark + board.slice(cell);

/** x's move that wins against the bot from `board`, if there is one. */
const winningMove = (board: string): number | undefined => {
  for (let cell = 1; cell <= 9; cell++) {
    if (board[cell - 1] !== ".") continue;
    const mine = put(board, cell, "x");
    if (winner(mine) === "x") return cell;
    if (!mine.includes(".")) continue;
    const theirs = put(mine, firstFree(mine), "o");
    if (winner(theirs) === undefined && winningMove(theirs) !== undefined)
      return cell;
  }
  return undefined;
};

/** The board as x was last shown it: the last three rows of cells. */
const boardOf = (messages: readonly { content?: unknown }[]): string => {
  const rows = messages
    .flatMap((m) =>
      typeof m.content === "string"
        ? [...m.content.matchAll(/^[1-9xo] [1-9xo] [1-9xo]$/gm)]
        : []
    )
    .map((r) => r[0].replace(/ /g, "").replace(/[1-9]/g, "."));
  return rows.slice(-3).join("");
};

/** x's policy against the bot: the move the search says wins. */
export const beatTheBot: OraclePolicy = (observations, _tools, history) => {
  const board = boardOf([...history, ...observations]);
  return toolCalls({
    name: "mark",
    arguments: { cell: winningMove(board) ?? firstFree(board) }
  });
};
