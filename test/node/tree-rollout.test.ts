// Tree rollouts: each episode of a branchable environment is forked after
// its steps and played on three times from each, against wrangler dev;
// the trajectories carry each point's returns, their mean (the state's
// Monte Carlo value) and each step's advantage.
import { describe, expect, inject, it } from "vitest";
import {
  type BranchPoint,
  randomPolicy,
  rollout,
  stepAdvantages
} from "../../src/client/index";
import type { Trajectory } from "../../src/client/trajectory";

const trajectoryOf = (over: Partial<Trajectory>): Trajectory =>
  ({ actions: [], rewards: [], done: false, ...over }) as Trajectory;

describe("step advantages from branch values", () => {
  it("are reward + V(after) − V(before) where both are known, V after an ended episode 0", () => {
    const points: BranchPoint[] = [
      { step: 1, returns: [1, 3], value: 2 },
      { step: 2, returns: [1], value: 1 }
    ];
    const ended = trajectoryOf({
      actions: [{}, {}, {}] as never,
      rewards: [0, 1, 1],
      done: true
    });
    // Step 1 has no V before it (a fork at step 0 is a reset).
    expect(stepAdvantages(ended, points)).toEqual([null, 1 + 1 - 2, 1 + 0 - 1]);
    const truncated = trajectoryOf({ ...ended, done: false });
    expect(stepAdvantages(truncated, points)).toEqual([null, 0, null]);
  });
});

describe("a tree rollout", () => {
  it("plays continuations from every step and values each", async () => {
    const { trajectories } = await rollout({
      baseUrl: inject("baseUrl"),
      environment: "branchy",
      episodes: 2,
      maxSteps: 4,
      policy: randomPolicy({ seed: 7 }),
      branches: { continuations: 3, every: 1 }
    });
    for (const t of trajectories) {
      expect(t.error).toBeNull();
      expect(t.actions).toHaveLength(4);
      expect(t.branches!.map((b) => b.step)).toEqual([1, 2, 3]);
      for (const b of t.branches!) {
        expect(b.returns).toHaveLength(3);
        // A continuation from step k plays 4 − k steps, earning 0 or 1 each.
        for (const r of b.returns) {
          expect(r).toBeGreaterThanOrEqual(0);
          expect(r).toBeLessThanOrEqual(4 - b.step);
        }
        expect(b.value).toBeCloseTo(b.returns.reduce((s, r) => s + r, 0) / 3);
      }
      expect(t.step_advantages).toEqual(stepAdvantages(t, t.branches!));
      expect(t.step_advantages![1]).toBeCloseTo(
        t.rewards[1]! + t.branches![1]!.value - t.branches![0]!.value
      );
      // Every copy was deleted with its continuation; the episode's own too.
      expect(t.deleted).toBe(true);
    }
  }, 120_000);

  it("branches the episodes of a group too, each with its group advantage", async () => {
    const { trajectories } = await rollout({
      baseUrl: inject("baseUrl"),
      environment: "branchy",
      episodes: 2,
      groupSize: 2,
      maxSteps: 3,
      policy: randomPolicy({ seed: 11 }),
      branches: { continuations: 2, every: 2 }
    });
    expect(trajectories.map((t) => t.group_index)).toEqual([0, 1]);
    for (const t of trajectories) {
      expect(t.error).toBeNull();
      expect(typeof t.advantage).toBe("number");
      expect(t.branches!.map((b) => b.step)).toEqual([2]);
      expect(t.branches![0]!.returns).toHaveLength(2);
    }
  }, 120_000);
});
