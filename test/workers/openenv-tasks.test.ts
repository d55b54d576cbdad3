// OpenEnv's task API under an environment's OpenEnv bases (of tutee, a
// copy of pupil whose statistics task-stats.test.ts never resets), its reset
// {split, index}, and Aviary's /start {task_idx}: each picks the dataset
// task it names, and the episodes they end count in the server's task
// statistics like any other.
import { beforeEach, describe, expect, it } from "vitest";
import type { TaskStatsResponse } from "../../src/protocol/http-task-stats";
import { createSignal } from "../shared/signal";
import { call, errorOf, json, send } from "./helpers";

const BASE = "/v1/environments/tutee/openenv";
const STATS = "/v1/environments/tutee/task-stats";

const post = (path: string, body: unknown) =>
  call(`${BASE}${path}`, send("POST", body));

const tasks = async (query = "") =>
  (await json<TaskStatsResponse>(await call(`${STATS}${query}`))).tasks;

beforeEach(async () => {
  await call(STATS, { method: "DELETE" });
});

describe("OpenEnv's task API", () => {
  it("answers OpenEnv's shapes: environments, splits, tasks, counts, one task and a range", async () => {
    expect(await json(await call(`${BASE}/list_environments`))).toEqual([
      "tutee"
    ]);
    expect(await json(await call(`${BASE}/tutee/splits`))).toEqual([
      { name: "default", type: "validation" },
      { name: "train", type: "train" },
      { name: "drill", type: "validation" }
    ]);
    expect(await json(await post("/tutee/tasks", { split: "train" }))).toEqual({
      tasks: [
        { id: "train-0", index: 0, split: "train" },
        { id: "train-1", index: 1, split: "train" },
        { id: "train-2", index: 2, split: "train" }
      ],
      env_name: "tutee"
    });
    expect(
      await json(await post("/tutee/num_tasks", { split: "default" }))
    ).toEqual({ num_tasks: 5 });
    // The name compares without case, as OpenEnv's does.
    expect(
      await json(await post("/TUTEE/task", { split: "train", index: 2 }))
    ).toEqual({
      task: { id: "train-2", index: 2, split: "train" }
    });
    expect(
      await json(await post("/tutee/task", { split: "drill", index: 12345 }))
    ).toEqual({
      task: { id: "drill-12345", index: 12345, split: "drill" }
    });
    // Python's slice rules.
    const range = async (body: object) =>
      (
        await json<{ tasks: { index: number }[] }>(
          await post("/tutee/task_range", body)
        )
      ).tasks.map((t) => t.index);
    expect(await range({ split: "default", start: 1, stop: 3 })).toEqual([
      1, 2
    ]);
    expect(await range({ split: "default", start: -2 })).toEqual([3, 4]);
    expect(await range({ split: "default", stop: -3 })).toEqual([0, 1]);
    expect(await range({ split: "default", start: null, stop: null })).toEqual([
      0, 1, 2, 3, 4
    ]);
    expect(await range({ split: "default", start: 4, stop: 2 })).toEqual([]);
    expect(await range({ split: "drill", start: 10, stop: 13 })).toEqual([
      10, 11, 12
    ]);
  });

  it("refuses with OpenEnv's statuses: 404 another env_name or split, 400 an index out of range or a bad body, 501 an endless split", async () => {
    const cases: [Promise<Response>, number][] = [
      [call(`${BASE}/other/splits`), 404],
      [post("/other/num_tasks", { split: "train" }), 404],
      [post("/tutee/num_tasks", { split: "nope" }), 404],
      [post("/tutee/task", { split: "train", index: 3 }), 400],
      [post("/tutee/task", { split: "train", index: -1 }), 400],
      [post("/tutee/task", { split: "train" }), 400],
      [post("/tutee/tasks", { split: "train", extra: 1 }), 400],
      [post("/tutee/tasks", {}), 400],
      [post("/tutee/tasks", { split: "drill" }), 501],
      [post("/tutee/num_tasks", { split: "drill" }), 501],
      [post("/tutee/task_range", { split: "drill", start: 0 }), 501],
      [call("/v1/environments/counter/openenv/counter/splits"), 501],
      [call("/v1/environments/nope/openenv/list_environments"), 404]
    ];
    for (const [pending, status] of cases) {
      const res = await pending;
      expect(res.status).toBe(status);
      await errorOf(res);
    }
  });

  it("plays the task reset {split, index} names over HTTP, and counts its episode for that task", async () => {
    const reset = await post("/reset", { split: "train", index: 1 });
    expect(reset.status).toBe(200);
    const first = await json<{
      observation: {
        messages: { content: string }[];
        metadata: { reattach_base_url: string };
      };
    }>(reset);
    expect(first.observation.messages[0]!.content).toBe("What is 101?");
    const session = new URL(first.observation.metadata.reattach_base_url)
      .pathname;
    const stepped = await call(
      `${session}/step`,
      send("POST", {
        action: {
          type: "call_tool",
          tool_name: "answer",
          arguments: { value: 101 }
        }
      })
    );
    expect(await json(stepped)).toMatchObject({ reward: 2, done: true });
    // The own dataset by OpenEnv's name for it, on the same session.
    const again = await call(
      `${session}/reset`,
      send("POST", { split: "default", index: 3 })
    );
    expect(again.status).toBe(200);
    await call(
      `${session}/step`,
      send("POST", {
        action: {
          type: "call_tool",
          tool_name: "answer",
          arguments: { value: 0 }
        }
      })
    );
    expect(
      (await tasks()).map((t) => [t.split, t.index, t.attempts, t.successes])
    ).toEqual([
      [null, 3, 1, 0],
      ["train", 1, 1, 1]
    ]);
    // split and index come together; a bad one is a 400 that starts nothing.
    const before = await tasks();
    for (const body of [
      { split: "train" },
      { index: 1 },
      { split: "train", index: 9 },
      { split: "nope", index: 0 }
    ]) {
      const res = await post("/reset", body);
      expect(res.status).toBe(400);
      await errorOf(res);
    }
    expect(await tasks()).toEqual(before);
  });

  it("plays the task a WebSocket reset {split, index} names, and counts its episode", async () => {
    const res = await call(`${BASE}/ws`, { headers: { Upgrade: "websocket" } });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const signal = createSignal();
    const frames: { type: string; data: Record<string, unknown> }[] = [];
    ws.addEventListener("message", (e) => {
      frames.push(JSON.parse(e.data as string));
      signal.notify();
    });
    ws.send(
      JSON.stringify({ type: "reset", data: { split: "drill", index: 5 } })
    );
    await signal.until(() => frames.length >= 1, { what: "the reset" });
    expect(JSON.stringify(frames[0])).toContain("What is 1005?");
    ws.send(
      JSON.stringify({
        type: "step",
        data: {
          type: "call_tool",
          tool_name: "answer",
          arguments: { value: 1005 }
        }
      })
    );
    await signal.until(() => frames.length >= 2, { what: "the step" });
    expect(frames[1]).toMatchObject({
      type: "observation",
      data: { reward: 2, done: true }
    });
    expect(await tasks()).toMatchObject([
      { split: "drill", index: 5, attempts: 1, successes: 1 }
    ]);
    ws.close();
  });
});

describe("Aviary's /start with a sampled index", () => {
  it("starts the split's task the sampler drew, and its episode counts for it", async () => {
    const { task_indices } = await json<{ task_indices: number[] }>(
      await call(
        `${STATS}/sample`,
        send("POST", { split: "train", group_size: 4, count: 1, seed: 3 })
      )
    );
    const index = task_indices[0]!;
    const aviary = "/v1/environments/tutee/splits/train/aviary";
    const started = await call(
      `${aviary}/start`,
      send("POST", { task_idx: index })
    );
    expect(started.status).toBe(200);
    const { env_id } = await json<{ env_id: string }>(started);
    const reset = await json<[{ content: string }[], unknown]>(
      await call(`${aviary}/reset`, send("POST", { env_id }))
    );
    expect(JSON.stringify(reset)).toContain(`What is ${100 + index}?`);
    const stepped = await call(
      `${aviary}/step`,
      send("POST", {
        env_id,
        action: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: {
                name: "answer",
                arguments: JSON.stringify({ value: 100 + index })
              }
            }
          ]
        }
      })
    );
    expect(stepped.status).toBe(200);
    expect(await tasks()).toMatchObject([
      { split: "train", index, attempts: 1, successes: 1 }
    ]);
  });
});
