// Named splits (train / eval / test) and generated datasets, picked by
// task_index + split at creation and at reset, over HTTP and the socket.
import { describe, expect, it } from "vitest";
import type { EnvironmentsResponse, ResetResponse } from "../../src/protocol";
import {
  call,
  createSession,
  errorOf,
  json,
  send,
  type TestSession
} from "./helpers";
import { openSocket } from "./ws-helpers";

const question = async (s: TestSession, body: object = {}) => {
  const res = await s.call("/reset", send("POST", body));
  expect(res.status).toBe(200);
  return (await json<ResetResponse>(res)).observations[0]?.content;
};

const create = (body: object) =>
  call("/v1/sessions", send("POST", { environment: "quiz", ...body }));

describe("dataset splits", () => {
  it("are listed in /v1/environments, each with its size or as generated", async () => {
    const { environments } = await json<EnvironmentsResponse>(
      await call("/v1/environments")
    );
    const quiz = environments.find((e) => e.name === "quiz");
    expect(quiz).toMatchObject({
      dataset_size: 2,
      splits: [
        { name: "train", size: 3, generated: false },
        { name: "eval", size: 1, generated: false },
        { name: "procgen", generated: true }
      ]
    });
    expect(quiz?.splits?.[2]).not.toHaveProperty("size");
    // An environment without splits lists none, and keeps dataset_size.
    const counter = environments.find((e) => e.name === "counter");
    expect(counter).not.toHaveProperty("splits");
  });

  it("pick the task at creation: the default dataset without a split", async () => {
    const fromDefault = await createSession({
      environment: "quiz",
      task_index: 1
    });
    expect(await question(fromDefault)).toBe("default 1");
    const fromTrain = await createSession({
      environment: "quiz",
      task_index: 2,
      split: "train"
    });
    expect(await question(fromTrain)).toBe("train 2");
    const seeded = await createSession({
      environment: "quiz",
      task_index: Number.MAX_SAFE_INTEGER,
      split: "procgen"
    });
    expect(await question(seeded)).toBe(`seed ${Number.MAX_SAFE_INTEGER}`);
  });

  it("pick the task at reset, and a reset without one goes back to the creation task", async () => {
    const s = await createSession({
      environment: "quiz",
      task_index: 0,
      split: "eval"
    });
    expect(await question(s)).toBe("eval 0");
    expect(await question(s, { task_index: 1, split: "train" })).toBe(
      "train 1"
    );
    expect(await question(s, { task_index: 7, split: "procgen" })).toBe(
      "seed 7"
    );
    expect(await question(s, { task_index: 1 })).toBe("default 1");
    expect(await question(s)).toBe("eval 0");
  });

  it("answer an unknown split or an index out of range with 400, and create nothing", async () => {
    const unknown = await create({ task_index: 0, split: "test" });
    expect(unknown.status).toBe(400);
    const e1 = await errorOf(unknown);
    expect(e1.message).toContain('no split "test"');
    expect(e1.details).toMatchObject({
      field: "split",
      splits: ["train", "eval", "procgen"]
    });

    const range = await create({ task_index: 1, split: "eval" });
    expect(range.status).toBe(400);
    expect((await errorOf(range)).message).toContain(
      'task_index 1 is out of range: split "eval" of quiz has 1 tasks'
    );

    const bare = await create({ split: "train" });
    expect(bare.status).toBe(400);
    expect((await errorOf(bare)).message).toContain("task_index");

    const counter = await call(
      "/v1/sessions",
      send("POST", { environment: "counter", task_index: 0, split: "train" })
    );
    expect(counter.status).toBe(400);
    expect((await errorOf(counter)).message).toContain("splits: none");
  });

  it("refuse a bad split at reset with 400, leaving the episode as it was", async () => {
    const s = await createSession({ environment: "quiz", task_index: 0 });
    expect(await question(s)).toBe("default 0");
    const before = await json(await s.call(""));
    const res = await s.call(
      "/reset",
      send("POST", { task_index: 3, split: "train" })
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details).toMatchObject({
      field: "task_index",
      size: 3
    });
    const both = await s.call(
      "/reset",
      send("POST", { task: { question: "x" }, task_index: 0 })
    );
    expect(both.status).toBe(400);
    expect(await json(await s.call(""))).toEqual({
      ...before,
      last_used_at: expect.any(String)
    });
  });

  it("are picked by the socket's reset frame", async () => {
    const s = await createSession({ environment: "quiz", task_index: 0 });
    const sock = await openSocket(s.session_id, s.token);
    sock.send({ type: "reset", id: "a", task_index: 2, split: "train" });
    sock.send({ type: "reset", id: "b", task_index: 0, split: "nope" });
    sock.send({ type: "reset", id: "c", task_index: 42, split: "procgen" });
    const frames = await sock.until(
      (f) => f.filter((x) => x.type === "reply").length >= 3
    );
    const replies = Object.fromEntries(
      frames.filter((f) => f.type === "reply").map((f) => [f.id, f])
    );
    expect(replies.a).toMatchObject({
      ok: true,
      value: { observations: [{ content: "train 2" }] }
    });
    expect(replies.b).toMatchObject({
      ok: false,
      error: { code: "invalid_request", details: { field: "split" } }
    });
    expect(replies.c).toMatchObject({
      ok: true,
      value: { observations: [{ content: "seed 42" }] }
    });
    sock.ws.close();
  });

  it("each have an Aviary dataset server of their own, under …/splits/<split>/aviary", async () => {
    const aviary = (path: string, body?: object) =>
      call(
        `/v1/environments/quiz${path}`,
        body === undefined ? undefined : send("POST", body)
      );
    const info = async (path: string) =>
      (await json<{ dataset_size: number | null }>(await aviary(path)))
        .dataset_size;
    expect(await info("/aviary/info")).toBe(2);
    expect(await info("/splits/train/aviary/info")).toBe(3);
    expect(await info("/splits/procgen/aviary/info")).toBeNull();
    const unknown = await aviary("/splits/test/aviary/info");
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      detail: expect.stringContaining('no split "test"')
    });

    const first = async (base: string, body: object) => {
      const start = await aviary(`${base}/start`, body);
      expect(start.status).toBe(200);
      const { env_id } = await json<{ env_id: string }>(start);
      const reset = await aviary(`${base}/reset`, { env_id });
      const [messages] = await json<[{ content: string }[]]>(reset);
      return messages[0]?.content;
    };
    expect(await first("/splits/train/aviary", { task_idx: 2 })).toBe(
      "train 2"
    );
    expect(await first("/splits/procgen/aviary", { task_idx: 9 })).toBe(
      "seed 9"
    );
    expect(await first("/aviary", { task_idx: 1 })).toBe("default 1");
    // Aviary's get_new_env(): any task of the split.
    expect(await first("/splits/eval/aviary", { task_idx: null })).toBe(
      "eval 0"
    );
    expect(await first("/splits/procgen/aviary", {})).toMatch(/^seed \d+$/);
    const range = await aviary("/splits/eval/aviary/start", { task_idx: 1 });
    expect(range.status).toBe(400);
    // A split the environment lacks is no server, whatever the body asks.
    const nowhere = await aviary("/splits/test/aviary/start", {
      task_kwargs: { question: "q" }
    });
    expect(nowhere.status).toBe(400);
  });
});
