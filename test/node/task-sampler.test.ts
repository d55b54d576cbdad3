// The curriculum's arithmetic and the samplers, as pure functions with a seeded random.
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args";
import {
  passRate,
  signalWeight,
  TaskStats,
  taskSampler
} from "../../src/client/index";
import {
  pickWeighted,
  seededRandom,
  weightedDraw
} from "../../src/protocol/task-signal";

const draws = (next: (unit: number) => number, n: number): number[] =>
  Array.from({ length: n }, (_, unit) => next(unit));

describe("signal weights", () => {
  it("is 1 − p^G − (1 − p)^G: zero for a task always or never solved, largest at p = 0.5", () => {
    expect(signalWeight(0, 8)).toBe(0);
    expect(signalWeight(1, 8)).toBe(0);
    expect(signalWeight(0.5, 8)).toBeCloseTo(1 - 2 / 256, 12);
    expect(signalWeight(0.5, 2)).toBeCloseTo(0.5, 12);
    expect(signalWeight(0.9, 8)).toBeLessThan(signalWeight(0.6, 8));
  });

  it("gives an untried task the optimistic prior p = 0.5 and moves with outcomes", () => {
    expect(passRate(0, 0)).toBe(0.5);
    expect(passRate(8, 8)).toBeCloseTo(0.9, 12);
    expect(passRate(8, 0)).toBeCloseTo(0.1, 12);
  });
});

describe("a draw over a large split", () => {
  it("names the index a pass over every weight names, searching only the tried tasks", () => {
    const random = seededRandom(11);
    for (let round = 0; round < 40; round++) {
      const taskCount = 1 + Math.floor(random() * 300);
      const untried = round % 5 === 0 ? 0 : random();
      const known = [...Array(taskCount).keys()]
        .filter(() => random() < 0.3)
        .map((index) => ({
          index,
          weight: random() < 0.3 ? 0 : random()
        }));
      const weights = [...Array(taskCount).keys()].map(
        (i) => known.find((k) => k.index === i)?.weight ?? untried
      );
      const total = weights.reduce((a, b) => a + b, 0);
      const draw = weightedDraw(taskCount, known, untried);
      const a = seededRandom(round);
      const b = seededRandom(round);
      for (let i = 0; i < 50; i++) {
        const picked = draw(a);
        const expected = pickWeighted(weights, total, b);
        // The sums differ in order of addition: only a draw on a boundary may part.
        if (picked !== expected) expect(Math.abs(picked - expected)).toBe(1);
        if (total > 0) expect(weights[picked]).toBeGreaterThan(0);
      }
    }
  });

  it("draws from a million indexes without a pass over them, never a task weighed zero", () => {
    const known = [
      { index: 0, weight: 0 },
      { index: 999_999, weight: 0 }
    ];
    const draw = weightedDraw(1_000_000, known, 0.99);
    const random = seededRandom(3);
    const picks = Array.from({ length: 1000 }, () => draw(random));
    expect(picks.every((i) => i > 0 && i < 999_999)).toBe(true);
    expect(new Set(picks).size).toBeGreaterThan(990);
  });
});

describe("task samplers", () => {
  const base = { count: 6, groupSize: 8, split: null, seed: 3 };

  it("sequential keeps the order rollouts always used: i mod count", () => {
    const next = taskSampler({
      ...base,
      kind: "sequential",
      stats: new TaskStats()
    });
    expect(draws(next, 8)).toEqual([0, 1, 2, 3, 4, 5, 0, 1]);
  });

  it("uniform repeats itself under the same seed and differs under another", () => {
    const run = (seed: number) =>
      draws(
        taskSampler({ ...base, seed, kind: "uniform", stats: new TaskStats() }),
        40
      );
    expect(run(3)).toEqual(run(3));
    expect(run(3)).not.toEqual(run(4));
    expect(run(3).every((i) => i >= 0 && i < 6)).toBe(true);
    expect(new Set(run(3)).size).toBe(6);
  });

  it("curriculum draws mixed tasks far more often than tasks always or never solved", () => {
    const stats = new TaskStats();
    // Tasks 0 and 1: solved in every one of 32 attempts; 2 and 3: never; 4 and 5: half.
    for (const i of [0, 1]) stats.add(null, i, 32, 32);
    for (const i of [2, 3]) stats.add(null, i, 32, 0);
    for (const i of [4, 5]) stats.add(null, i, 32, 16);
    const picks = draws(
      taskSampler({ ...base, kind: "curriculum", stats }),
      1000
    );
    // Weights 0.99 (mixed) against 0.21 (p = 33/34 or 1/34): about 70 %
    // mixed, where uniform draws would give a third.
    const mixed = picks.filter((i) => i >= 4).length;
    expect(mixed).toBeGreaterThan(600);
  });

  it("curriculum tries an untried task before repeating one it knows is flat", () => {
    const stats = new TaskStats();
    for (let i = 0; i < 5; i++) stats.add(null, i, 64, 64);
    const picks = draws(
      taskSampler({ ...base, kind: "curriculum", stats }),
      200
    );
    // 0.99 against 5 × 0.11: about 64 %, where uniform draws give a sixth.
    expect(picks.filter((i) => i === 5).length).toBeGreaterThan(100);
  });

  it("keeps splits apart in the statistics and saves them sorted", () => {
    const stats = new TaskStats();
    stats.add("train", 2, 8, 3);
    stats.add(null, 2, 8, 8);
    stats.add("train", 2, 8, 1);
    expect(stats.get("train", 2)).toEqual({
      split: "train",
      index: 2,
      attempts: 16,
      successes: 4
    });
    expect(
      TaskStats.from(stats.toJSON("calculator")).toJSON("calculator")
    ).toEqual({
      version: 1,
      environment: "calculator",
      tasks: [
        { split: null, index: 2, attempts: 8, successes: 8 },
        { split: "train", index: 2, attempts: 16, successes: 4 }
      ]
    });
  });
});

describe("the sampling options of the command line", () => {
  const rollout = (...flags: string[]) =>
    parseArgs(["rollout", "--env", "calculator", ...flags], {});

  it("reads --sampler, --task-count, --task-stats and --success-threshold", () => {
    expect(
      rollout(
        "--sampler",
        "curriculum",
        "--task-count",
        "12",
        "--task-stats",
        "stats.json",
        "--success-threshold=0.5"
      )
    ).toMatchObject({
      sampler: "curriculum",
      taskCount: 12,
      taskStats: "stats.json",
      successThreshold: 0.5
    });
    expect(rollout()).not.toHaveProperty("sampler");
  });

  it("refuses an unknown sampler, statistics without a curriculum, and a fixed task index with a sampler", () => {
    expect(() => rollout("--sampler", "greedy")).toThrow(/one of sequential/);
    expect(() => rollout("--task-stats", "s.json")).toThrow(/curriculum/);
    expect(() => rollout("--sampler", "uniform", "--task-index", "3")).toThrow(
      /--task-index/
    );
  });
});
