/**
 * @module A grid maze to walk from S to G: the example that can be forked
 * at a past step (`branchable: true`), so "what if it had turned left at
 * step 3" and tree rollouts work on it as they stand.
 */

import { defineEnvironment, defineState, toolCalls } from "roost-edge/core";
import * as z from "zod";

/** Rows of each layout: `#` a wall, `S` the start, `G` the goal. */
export const LAYOUTS: readonly (readonly string[])[] = [
  ["S.#..", ".##.#", "...#.", "#.#..", "....G"],
  ["S...#", "###.#", "....#", ".####", "....G"],
  ["S.#...", "..#.#.", "#...#.", "..###.", ".#....", "...#.G"]
];

const MOVES = {
  up: [0, -1],
  down: [0, 1],
  left: [-1, 0],
  right: [1, 0]
} as const;
type Direction = keyof typeof MOVES;

interface Cell {
  x: number;
  y: number;
}

const find = (rows: readonly string[], mark: string): Cell => {
  const y = rows.findIndex((row) => row.includes(mark));
  return { x: rows[y]!.indexOf(mark), y };
};

const open = (rows: readonly string[], { x, y }: Cell): boolean =>
  (rows[y]?.[x] ?? "#") !== "#";

/** The grid as the agent sees it, `A` where it stands. */
const render = (rows: readonly string[], at: Cell): string =>
  rows
    .map((row, y) =>
      [...row].map((c, x) => (x === at.x && y === at.y ? "A" : c)).join("")
    )
    .join("\n");

/** The shortest walk from S to G, breadth first: the validator's oracle. */
export const shortestWalk = (rows: readonly string[]): Direction[] => {
  const start = find(rows, "S");
  const goal = find(rows, "G");
  const key = ({ x, y }: Cell) => `${x},${y}`;
  const came = new Map<string, { from: Cell; move: Direction } | null>([
    [key(start), null]
  ]);
  const queue = [start];
  for (let cell = queue.shift(); cell; cell = queue.shift()) {
    if (cell.x === goal.x && cell.y === goal.y) break;
    for (const [move, [dx, dy]] of Object.entries(MOVES)) {
      const next = { x: cell.x + dx, y: cell.y + dy };
      if (!open(rows, next) || came.has(key(next))) continue;
      came.set(key(next), { from: cell, move: move as Direction });
      queue.push(next);
    }
  }
  const walk: Direction[] = [];
  for (let step = came.get(key(goal)); step; step = came.get(key(step.from)))
    walk.unshift(step.move);
  return walk;
};

const task = z
  .object({
    layout: z
      .number()
      .int()
      .min(0)
      .max(LAYOUTS.length - 1)
  })
  .default({ layout: 0 });

export const maze = defineEnvironment({
  name: "maze",
  description:
    "Walk from S to G through a grid maze with move; reward 1 at the goal, less for every bump into a wall.",
  task,
  state: defineState({
    x: { type: z.number().int().default(0) },
    y: { type: z.number().int().default(0) },
    bumps: { type: z.number().int().default(0) }
  }),
  maxSteps: 40,
  // Each commit keeps what a replay of the log lacks (one more row a
  // step), so a fork can copy any step of the episode, not only now.
  branchable: true,
  tools: (tool) => ({
    move: tool({
      description: "Move one cell up, down, left or right.",
      input: z.object({ direction: z.enum(["up", "down", "left", "right"]) }),
      run: ({ direction }, ctx) => {
        const rows = LAYOUTS[ctx.task.layout]!;
        const [dx, dy] = MOVES[direction];
        const at = { x: ctx.state.get("x", 0), y: ctx.state.get("y", 0) };
        const next = { x: at.x + dx, y: at.y + dy };
        if (!open(rows, next)) {
          ctx.state.set("bumps", ctx.state.get("bumps", 0) + 1);
          return `A wall. Still here:\n${render(rows, at)}`;
        }
        ctx.state.set("x", next.x);
        ctx.state.set("y", next.y);
        if (rows[next.y]![next.x] === "G")
          ctx.episode.end({
            reward: Math.max(0.1, 1 - 0.1 * ctx.state.get("bumps", 0))
          });
        return render(rows, next);
      }
    })
  }),
  reset: ({ task, ctx }) => {
    const rows = LAYOUTS[task.layout]!;
    const start = find(rows, "S");
    ctx.state.set("x", start.x);
    ctx.state.set("y", start.y);
    return `Reach G with move. You are A:\n${render(rows, start)}`;
  },
  validation: {
    oracle: (task) => {
      const walk = shortestWalk(LAYOUTS[task.layout]!);
      let next = 0;
      return () =>
        toolCalls({ name: "move", arguments: { direction: walk[next++] } });
    }
  }
});
