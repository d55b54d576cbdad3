// The maze example, the one a newcomer can fork at a past step: the
// oracle's walk reaches the goal, and a fork at step 3 is the maze as it
// stood then, from where a different move goes elsewhere.
import { describe, expect, it } from "vitest";
import { LAYOUTS, shortestWalk } from "../../examples/maze/index";
import type { ForkResponse, StepResponse } from "../../src/protocol";
import {
  createResetSession,
  forkCopy,
  json,
  send,
  step,
  type TestSession
} from "./helpers";

/** Each move as a step, in turn; the last step's answer. */
const walk = async (s: TestSession, moves: string[]) => {
  let last: StepResponse | undefined;
  for (const direction of moves) last = await step(s, "move", { direction });
  return last;
};

const stateOf = async (s: TestSession) =>
  (await json<{ state: Record<string, unknown> }>(await s.call("/state")))
    .state;

describe("the maze example", () => {
  it.each(LAYOUTS.map((_, layout) => layout))(
    "reaches the goal of layout %i by its shortest walk, for a reward of 1",
    async (layout) => {
      const s = await createResetSession({
        environment: "maze",
        task: { layout }
      });
      const last = await walk(s, shortestWalk(LAYOUTS[layout]!));
      expect(last).toMatchObject({ reward: 1, done: true });
    }
  );

  it("forks at a past step: the copy stands where the walk was, and goes its own way", async () => {
    const s = await createResetSession({ environment: "maze" });
    const moves = shortestWalk(LAYOUTS[0]!);
    await walk(s, moves.slice(0, 3));
    const atThree = await stateOf(s);
    await walk(s, ["up", "up"]);
    const res = await s.call("/fork", send("POST", { count: 1, step: 3 }));
    expect(res.status, await res.clone().text()).toBe(201);
    const copy = forkCopy((await json<ForkResponse>(res)).sessions[0]!, "maze");
    expect(await stateOf(copy)).toEqual(atThree);
    expect(await json(await copy.call(""))).toMatchObject({ steps: 3 });
    // The copy finishes the walk; the source is where it went.
    expect(await walk(copy, moves.slice(3))).toMatchObject({
      reward: 1,
      done: true
    });
    expect(await stateOf(s)).not.toEqual(await stateOf(copy));
  });

  it("takes a bump into a wall off the reward", async () => {
    const s = await createResetSession({ environment: "maze" });
    const blocked = await step(s, "move", { direction: "left" });
    expect(String(blocked.observations[0]?.content)).toContain("A wall");
    const last = await walk(s, shortestWalk(LAYOUTS[0]!));
    expect(last?.reward).toBeCloseTo(0.9);
  });
});
