// `roost-edge rescore` over a trajectories file a real calculator rollout
// wrote (wrangler dev): the same rubric reproduces it, a changed one
// changes the returns as it should, and nothing is run again.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RescoredTrajectory, Trajectory } from "../../src/client/index";
import { rolloutCli } from "./helpers/cli";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "roost-rescore-"));
const file = join(dir, "trajectories.jsonl");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rescore = (args: string[]) =>
  run(
    join("node_modules", ".bin", "tsx"),
    ["src/cli/main.ts", "rescore", ...args],
    {
      env: { ...process.env, NO_COLOR: "1" }
    }
  );

const read = <T>(path: string): T[] =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as T);

let original: Trajectory[];

beforeAll(async () => {
  await rolloutCli(inject("baseUrl"), [
    "--env",
    "calculator",
    "--episodes",
    "4",
    "--group-size",
    "2",
    "--concurrency",
    "2",
    "--policy",
    "test/node/helpers/uneven-policy.ts",
    "--out",
    file
  ]);
  original = read<Trajectory>(file);
}, 60_000);

describe("roost-edge rescore", () => {
  it("reproduces the components, rewards, returns and advantages with the environment's own rubric", async () => {
    // The run had both kinds of episode: right (1) and wrong, sent as text (0).
    expect(original.map((t) => t.return).sort()).toEqual([0, 1, 1, 1]);
    const out = join(dir, "same.jsonl");
    const { stderr } = await rescore([
      "--rubric",
      "test/node/helpers/rescore/same.ts",
      "--in",
      file,
      "--out",
      out
    ]);
    const rescored = read<RescoredTrajectory>(out);
    expect(rescored).toHaveLength(4);
    for (const [i, t] of rescored.entries()) {
      const before = original[i]!;
      expect(t.reward_components).toEqual(before.reward_components);
      expect(t.rewards).toEqual(before.rewards);
      expect(t.return).toBe(before.return);
      expect(t.advantage).toBe(before.advantage);
      expect(t.previous).toEqual({
        rewards: before.rewards,
        reward_components: before.reward_components,
        return: before.return,
        advantage: before.advantage
      });
      // Everything else is the line as it was.
      expect({ ...t, previous: undefined }).toEqual({
        ...before,
        previous: undefined
      });
    }
    expect(stderr).toContain("Re-scored 4 episodes.");
    expect(stderr).toContain("  mean return   0.750 before, 0.750 after");
    expect(stderr).toContain(
      "  groups        2, advantages recomputed; 1 with no spread"
    );
  }, 60_000);

  it("changes the returns as a changed rubric says, reports a read of the session's stores as that component's error, and recomputes advantages", async () => {
    const { stdout } = await rescore([
      "--rubric",
      "test/node/helpers/rescore/changed.ts",
      "--in",
      file
    ]);
    const rescored = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RescoredTrajectory);
    for (const [i, t] of rescored.entries()) {
      const before = original[i]!;
      const right = before.return === 1;
      // Right answers were numbers (format 0.5 more), and every episode
      // here ends in two steps (calculator, submit): the episode pays 2.
      expect(t.rewards).toHaveLength(2);
      expect(t.return).toBe(right ? 1 + 0.5 + 2 : 2);
      const last = t.reward_components.at(-1)!;
      expect(last).toMatchObject({
        exact: right ? 1 : 0,
        format: right ? 1 : 0,
        secret: {
          value: 0,
          error: expect.stringMatching(
            /^ctx\.hidden is not in a trajectories file/
          )
        },
        episode: { value: 2, per_step: [1, 2] },
        "episode.quick": 1
      });
      expect(t.previous.return).toBe(before.return);
    }
    const group1 = rescored.filter((t) => t.group_id === 1);
    expect(group1.map((t) => t.group_mean)).toEqual([2.75, 2.75]);
    expect(group1.map((t) => t.group_std)).toEqual([0.75, 0.75]);
    expect(group1.map((t) => Math.round(t.advantage!)).sort()).toEqual([-1, 1]);
  }, 60_000);

  it("refuses a module without rubrics and a file that is not trajectories, with exit code 2", async () => {
    const notTrajectories = join(dir, "not.jsonl");
    writeFileSync(notTrajectories, '{"episode": 0}\n');
    const noRubric = await rescore([
      "--rubric",
      "test/node/helpers/uneven-policy.ts",
      "--in",
      file
    ]).catch((e: { code: number; stderr: string }) => e);
    expect(noRubric).toMatchObject({ code: 2 });
    expect((noRubric as { stderr: string }).stderr).toContain(
      "exports no rubric"
    );
    const bad = await rescore([
      "--rubric",
      "test/node/helpers/rescore/same.ts",
      "--in",
      notTrajectories
    ]).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain(
      `${notTrajectories}:1 is not a trajectory`
    );
  }, 60_000);
});
