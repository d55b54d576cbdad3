// Task sampling against wrangler dev: a curriculum over calculator tasks
// that are always solved, never solved, or solved half the time spends its
// groups on the mixed ones, and a statistics file carries over a restart.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import {
  rollout,
  TaskStats,
  TaskStatsFileSchema,
  type Trajectory
} from "../../src/client/index";
import { rolloutCli } from "./helpers/cli";
import { alternating, tieredPolicy, tierOf } from "./helpers/tiered-policy";

const dir = mkdtempSync(join(tmpdir(), "roost-curriculum-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GROUP = 4;
const GROUPS = 30;

/** The dataset index each group played, in group order. */
const groupIndexes = (trajectories: Trajectory[]): number[] =>
  trajectories
    .filter((t) => t.group_index === 0)
    .sort((a, b) => a.group_id! - b.group_id!)
    .map((t) => t.task_index!);

const run = (sampler: "uniform" | "curriculum", groups = GROUPS) =>
  rollout({
    baseUrl: inject("baseUrl"),
    environment: "calculator",
    policy: tieredPolicy({ count: 6, mixed: alternating() }),
    episodes: GROUP * groups,
    groupSize: GROUP,
    // One group at a time, so each draw sees every earlier outcome.
    concurrency: GROUP,
    sampler,
    seed: 7,
    taskCount: 6,
    // This client's own statistics: the run sees only its own outcomes,
    // whatever other tests did to the server's (server-stats-e2e.test.ts).
    taskStats: new TaskStats()
  });

describe("curriculum task sampling", () => {
  it("spends its groups on the mixed tasks, records every outcome, and reports the share with signal", async () => {
    const { trajectories, summary, taskStats } = await run("curriculum");
    expect(summary.errors).toBe(0);
    const indexes = groupIndexes(trajectories);
    expect(indexes).toHaveLength(GROUPS);
    // Untried tasks come first: the optimistic prior beats anything known.
    expect(new Set(indexes.slice(0, 6)).size).toBeGreaterThanOrEqual(5);
    const mixed = indexes.filter((i) => tierOf(i) === "mixed").length;
    // Uniform draws would put a third of the groups (10) on the mixed tasks.
    expect(mixed).toBeGreaterThan(GROUPS / 3);
    // Every mixed group splits 2–2, every other one is flat.
    expect(summary.signal_share).toBeCloseTo(mixed / GROUPS, 12);
    expect(summary.flat_groups).toBe(GROUPS - mixed);
    for (let i = 0; i < 6; i++) {
      const record = taskStats.get(null, i);
      const played = indexes.filter((x) => x === i).length * GROUP;
      expect(record?.attempts ?? 0).toBe(played);
      const expected = { solved: played, failed: 0, mixed: played / 2 };
      expect(record?.successes ?? 0).toBe(expected[tierOf(i)]);
    }
  });

  it("uniform draws repeat under the same seed", async () => {
    const first = groupIndexes((await run("uniform", 8)).trajectories);
    const again = groupIndexes((await run("uniform", 8)).trajectories);
    expect(first).toEqual(again);
    expect(new Set(first).size).toBeGreaterThan(1);
  });

  it("writes --task-stats at the end of a CLI run and continues from it on the next", async () => {
    const file = join(dir, "stats.json");
    const args = [
      "--env",
      "calculator",
      "--policy",
      "test/node/helpers/tiered-policy.ts",
      "--group-size",
      "4",
      "--concurrency",
      "4",
      "--episodes",
      "24",
      "--sampler",
      "curriculum",
      "--task-count",
      "6",
      "--seed",
      "3",
      "--task-stats",
      file,
      "--out",
      join(dir, "out.jsonl")
    ];
    const first = await rolloutCli(inject("baseUrl"), args);
    expect(first.stderr).toMatch(/with signal\s+\d+\.\d %/);
    const saved = TaskStatsFileSchema.parse(
      JSON.parse(readFileSync(file, "utf8"))
    );
    expect(saved.environment).toBe("calculator");
    const total = (s: typeof saved) =>
      s.tasks.reduce((sum, t) => sum + t.attempts, 0);
    expect(total(saved)).toBe(24);
    await rolloutCli(inject("baseUrl"), args);
    const after = TaskStatsFileSchema.parse(
      JSON.parse(readFileSync(file, "utf8"))
    );
    expect(total(after)).toBe(48);
    // Continued, not overwritten: each task's count is the first run's
    // plus the episodes the second run played on it.
    const second = readFileSync(join(dir, "out.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Trajectory);
    for (let i = 0; i < 6; i++) {
      const before = saved.tasks.find((t) => t.index === i)?.attempts ?? 0;
      const played = second.filter((t) => t.task_index === i).length;
      expect(after.tasks.find((t) => t.index === i)?.attempts ?? 0).toBe(
        before + played
      );
    }
  });

  it("refuses another environment's statistics file with exit code 2, writing nothing", async () => {
    const file = join(dir, "other.json");
    const body = `${JSON.stringify({ version: 1, environment: "counter", tasks: [] })}\n`;
    writeFileSync(file, body);
    await expect(
      rolloutCli(inject("baseUrl"), [
        "--env",
        "calculator",
        "--sampler",
        "curriculum",
        "--task-stats",
        file
      ])
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/environment "counter"/)
    });
    expect(readFileSync(file, "utf8")).toBe(body);
  });
});
