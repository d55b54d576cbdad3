// The server's curriculum sampler (POST /v1/environments/:name/task-stats/sample):
// the same draw for the same seed and statistics, tasks with mixed outcomes
// favoured; and an episode's last step never held up by the statistics.

import { beforeEach, describe, expect, it } from "vitest";
import { replaceOutcomeSender } from "../../src/layers/task-stats/report";
import type { TaskSampleResponse } from "../../src/protocol/http-task-stats";
import { call, createSession, json, send, step } from "./helpers";
import { inside, stubOf } from "./session-helpers";
import {
  answerFrame,
  episode,
  STATS,
  sample,
  stats
} from "./task-stats-helpers";
import { openSocket } from "./ws-helpers";

beforeEach(async () => {
  expect((await call(STATS, { method: "DELETE" })).status).toBe(200);
});

describe("the server's curriculum sampler", () => {
  it("draws the same indexes for the same seed and statistics, from the split's range", async () => {
    const body = { group_size: 8, count: 50, seed: 42 };
    const a = await json<TaskSampleResponse>(await sample(body));
    const b = await json<TaskSampleResponse>(await sample(body));
    expect(a).toMatchObject({
      split: null,
      group_size: 8,
      task_count: 5,
      seed: 42
    });
    expect(b.task_indices).toEqual(a.task_indices);
    expect(a.task_indices.every((i) => i >= 0 && i < 5)).toBe(true);
    const train = await json<TaskSampleResponse>(
      await sample({ ...body, split: "train" })
    );
    expect(train.task_indices.every((i) => i >= 0 && i < 3)).toBe(true);
    const drill = await json<TaskSampleResponse>(
      await sample({ ...body, split: "drill", task_count: 20 })
    );
    expect(drill.task_count).toBe(20);
    expect(drill.task_indices.every((i) => i >= 0 && i < 20)).toBe(true);
    // Without a seed one is chosen, and answered so the draw can be repeated.
    const unseeded = await json<TaskSampleResponse>(
      await sample({ group_size: 8, count: 5 })
    );
    const again = await json<TaskSampleResponse>(
      await sample({ group_size: 8, count: 5, seed: unseeded.seed })
    );
    expect(again.task_indices).toEqual(unseeded.task_indices);
  });

  it("favours the tasks with mixed outcomes over those always or never solved", async () => {
    // Task 0 always solved, task 1 never, task 2 half the time: 8 episodes each.
    for (let i = 0; i < 8; i++) {
      await episode(0, 0);
      await episode(1, 99);
      await episode(2, i % 2 === 0 ? 2 : 99);
    }
    const { task_indices } = await json<TaskSampleResponse>(
      await sample({ group_size: 8, count: 400, seed: 1, task_count: 3 })
    );
    const share = (i: number) =>
      task_indices.filter((x) => x === i).length / task_indices.length;
    // Weights: p = 0.9 and 0.1 give 1 − 0.9^8 − 0.1^8 ≈ 0.57, p = 0.5 ≈ 0.99.
    expect(share(2)).toBeGreaterThan(share(0));
    expect(share(2)).toBeGreaterThan(share(1));
    // The seeded draw moves when the statistics do.
    await call(STATS, { method: "DELETE" });
    const fresh = await json<TaskSampleResponse>(
      await sample({ group_size: 8, count: 400, seed: 1, task_count: 3 })
    );
    expect(fresh.task_indices).not.toEqual(task_indices);
  });

  it("answer an episode's last step after at most the statistics' wait when they never answer, the step committed", async () => {
    const s = await createSession({ environment: "pupil", task_index: 3 });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    // A statistics object that never answers: the session must not wait on it forever.
    await inside(stubOf(s.session_id), (o) => {
      replaceOutcomeSender(o.runtime, () => new Promise<void>(() => {}));
    });
    const out = await step(s, "answer", { value: 3 });
    expect(out).toMatchObject({ done: true, reward: 2 });
    expect((await stats()).tasks).toEqual([]);
  });

  it("hold no mutation queued behind an episode's last step while the statistics take its outcome", async () => {
    const s = await createSession({ environment: "pupil", task_index: 3 });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    await inside(stubOf(s.session_id), (o) => {
      replaceOutcomeSender(o.runtime, () => new Promise<void>(() => {}));
    });
    const sock = await openSocket(s.session_id, s.token);
    sock.send(answerFrame(3));
    // Committed: its event is out. Its reply waits for the statistics
    // (at most 2 s); a mutation sent now runs at once.
    await sock.until((f) => f.some((x) => x.type === "step"));
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    const replied = (f: { type: unknown; id?: unknown }[]) =>
      f.some((x) => x.type === "reply" && x.id === "s");
    expect(replied(sock.frames)).toBe(false);
    const frames = await sock.until(replied);
    expect(frames.find((f) => f.id === "s")).toMatchObject({
      ok: true,
      value: { done: true, reward: 2 }
    });
  });
});
