// The server's task statistics against wrangler dev: concurrent rollouts
// drawing from the server's curriculum share one set of statistics, the
// CLI's curriculum uses them without --task-stats, and a Python trainer's
// OpenEnv task API calls (the exact requests: GET splits, POST num_tasks,
// POST task, POST /reset {split, index}) play the task they name and
// count its episode.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createClient, rollout, type Trajectory } from "../../src/client/index";
import type { TaskStatsResponse } from "../../src/protocol/http-task-stats";
import { rolloutCli } from "./helpers/cli";
import { policy } from "./helpers/pupil-policy";

const dir = mkdtempSync(join(tmpdir(), "roost-server-stats-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const client = () => createClient({ baseUrl: inject("baseUrl") });

/** Every record of pupil's statistics, as "split:index" → [attempts, successes]. */
const records = async (): Promise<Record<string, [number, number]>> => {
  const out: Record<string, [number, number]> = {};
  let cursor: string | undefined;
  do {
    const page: TaskStatsResponse = await client().taskStats("pupil", {
      limit: 1000,
      ...(cursor === undefined ? {} : { cursor })
    });
    for (const t of page.tasks)
      out[`${t.split ?? ""}:${t.index}`] = [t.attempts, t.successes];
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  return out;
};

/** What the trajectories say each task played, in the same shape (the policy solves even answers only). */
const played = (trajectories: Trajectory[]) => {
  const out: Record<string, [number, number]> = {};
  for (const t of trajectories) {
    expect(t.error).toBeNull();
    const key = `${t.split ?? ""}:${t.task_index}`;
    const [a, s] = out[key] ?? [0, 0];
    out[key] = [a + 1, s + (t.task_index! % 2 === 0 ? 1 : 0)];
  }
  return out;
};

beforeEach(async () => {
  await client().resetTaskStats("pupil");
});

describe("the server's task statistics", () => {
  it("are shared by two rollouts running at once, each drawing from the server's curriculum", async () => {
    const run = (seed: number) =>
      rollout({
        baseUrl: inject("baseUrl"),
        environment: "pupil",
        policy,
        episodes: 12,
        groupSize: 2,
        concurrency: 4,
        sampler: "curriculum",
        seed
      });
    const [a, b] = await Promise.all([run(1), run(2)]);
    const both = played([...a.trajectories, ...b.trajectories]);
    expect(await records()).toEqual(both);
    // Every group played one drawn index.
    for (const { trajectories } of [a, b]) {
      const byGroup = new Map<number, Set<number>>();
      for (const t of trajectories)
        byGroup.set(
          t.group_id!,
          (byGroup.get(t.group_id!) ?? new Set()).add(t.task_index!)
        );
      expect([...byGroup.values()].every((s) => s.size === 1)).toBe(true);
    }
  });

  it("feed the CLI's curriculum when it is given no --task-stats file", async () => {
    const out = join(dir, "cli.jsonl");
    await rolloutCli(inject("baseUrl"), [
      "--env",
      "pupil",
      "--policy",
      "test/node/helpers/pupil-policy.ts",
      "--sampler",
      "curriculum",
      "--group-size",
      "2",
      "--episodes",
      "8",
      "--seed",
      "4",
      "--out",
      out
    ]);
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Trajectory);
    expect(lines).toHaveLength(8);
    expect(await records()).toEqual(played(lines));
  });

  it("count an episode a Python trainer starts with OpenEnv's task API and reset {split, index}", async () => {
    const base = `${inject("baseUrl")}/v1/environments/pupil/openenv`;
    const post = async (url: string, body: unknown) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    const splits = (await (await fetch(`${base}/pupil/splits`)).json()) as {
      name: string;
    }[];
    expect(splits.map((s) => s.name)).toContain("train");
    expect(await post(`${base}/pupil/num_tasks`, { split: "train" })).toEqual({
      num_tasks: 3
    });
    // The index a trainer's sampler would pick: the server's curriculum.
    const { task_indices } = await client().sampleTasks("pupil", {
      split: "train",
      group_size: 4,
      count: 1,
      seed: 9
    });
    const index = task_indices[0]!;
    expect(await post(`${base}/pupil/task`, { split: "train", index })).toEqual(
      { task: { id: `train-${index}`, index, split: "train" } }
    );
    const reset = (await post(`${base}/reset`, { split: "train", index })) as {
      observation: {
        messages: { content: string }[];
        metadata: { reattach_base_url: string };
      };
    };
    const answer = 100 + index;
    expect(reset.observation.messages[0]!.content).toBe(`What is ${answer}?`);
    const step = await post(
      `${reset.observation.metadata.reattach_base_url}/step`,
      {
        action: {
          type: "call_tool",
          tool_name: "answer",
          arguments: { value: answer }
        }
      }
    );
    expect(step).toMatchObject({ reward: 2, done: true });
    expect(await records()).toEqual({ [`train:${index}`]: [1, 1] });
  });
});
