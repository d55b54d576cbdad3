// The server's task statistics: every ended episode of a dataset task
// counts for its task, whatever the transport, read at GET
// /v1/environments/:name/task-stats and reset with DELETE. Drawing from
// them (POST …/task-stats/sample) is in task-stats-sampler.test.ts. Real
// session objects and the real statistics object, in workerd.

import { beforeEach, describe, expect, it } from "vitest";
import {
  type CallInit,
  call,
  createSession,
  errorOf,
  json,
  send,
  step,
  withEnv
} from "./helpers";
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

describe("task statistics", () => {
  it("count an episode when it ends over HTTP: success at the environment's threshold, the mean return, truncation too", async () => {
    expect((await stats()).tasks).toEqual([]);
    await episode(3, 3); // right: 2, a success
    await episode(3, 4); // off by one: 1, below the threshold of 2
    await episode(3, null); // truncated: 0
    await episode(1, 9, "train"); // split train, index 1: 0
    const read = await stats("?group_size=4");
    expect(read).toMatchObject({
      environment: "pupil",
      success_threshold: 2,
      group_size: 4
    });
    expect(read.tasks).toEqual([
      {
        split: null,
        index: 3,
        attempts: 3,
        successes: 1,
        mean_return: 1,
        pass_rate: 2 / 5,
        p_signal: expect.closeTo(1 - 0.4 ** 4 - 0.6 ** 4, 12)
      },
      {
        split: "train",
        index: 1,
        attempts: 1,
        successes: 0,
        mean_return: 0,
        pass_rate: 1 / 3,
        p_signal: expect.closeTo(1 - (1 / 3) ** 4 - (2 / 3) ** 4, 12)
      }
    ]);
    // One split only.
    expect((await stats("?split=train")).tasks.map((t) => t.index)).toEqual([
      1
    ]);
  });

  it("count nothing for a running episode, a task given as it is, or an environment that opted out", async () => {
    const running = await createSession({
      environment: "pupil",
      task_index: 2
    });
    await running.call("/reset", send("POST", {}));
    await step(running, "wait");
    const given = await createSession({
      environment: "pupil",
      task: { answer: 2 }
    });
    await given.call("/reset", send("POST", {}));
    await step(given, "answer", { value: 2 });
    expect((await stats()).tasks).toEqual([]);
    // A step after the end is refused and counts nothing twice.
    const ended = await episode(2, 2);
    expect(
      (await ended.call("/step", send("POST", { action: { tool_calls: [] } })))
        .status
    ).toBe(409);
    expect((await stats()).tasks).toMatchObject([{ index: 2, attempts: 1 }]);
    const truant = await call("/v1/environments/truant/task-stats");
    expect(truant.status).toBe(404);
  });

  it("follow the episode's own task: a reset naming another index counts for that one", async () => {
    const s = await createSession({ environment: "pupil", task_index: 0 });
    await s.call("/reset", send("POST", { task_index: 4 }));
    await step(s, "answer", { value: 4 });
    // Back to the creation's task with an empty reset.
    await s.call("/reset", send("POST", {}));
    await step(s, "answer", { value: 0 });
    await s.call("/reset", send("POST", { task_index: 7, split: "drill" }));
    await step(s, "answer", { value: 1007 });
    expect(
      (await stats()).tasks.map((t) => [t.split, t.index, t.successes])
    ).toEqual([
      [null, 0, 1],
      [null, 4, 1],
      ["drill", 7, 1]
    ]);
  });

  it("count an episode ended over the session WebSocket", async () => {
    const s = await createSession({
      environment: "pupil",
      task_index: 2,
      split: "train"
    });
    const sock = await openSocket(s.session_id, s.token);
    sock.send({ type: "reset", id: "r" });
    // The step after the reset's reply: this test is about the count, and
    // one CI run saw the pipelined step refused without saying why.
    await sock.until((f) => f.some((x) => x.type === "reply" && x.id === "r"));
    sock.send(answerFrame(102));
    const frames = await sock.until(
      (f) => f.filter((x) => x.type === "reply").length >= 2
    );
    const stepped = frames.find((f) => f.id === "s");
    // The whole reply in the message: a refusal says why.
    expect(stepped, JSON.stringify(stepped)).toMatchObject({
      ok: true,
      value: { done: true, reward: 2 }
    });
    // The reply went out after the outcome was counted.
    expect((await stats()).tasks).toMatchObject([
      { split: "train", index: 2, attempts: 1, successes: 1 }
    ]);
    sock.ws.close();
  });

  it("count every copy of a forked episode for its task", async () => {
    const s = await createSession({ environment: "pupil", task_index: 1 });
    await s.call("/reset", send("POST", {}));
    const forked = await s.call("/fork", send("POST", { count: 2 }));
    expect(forked.status).toBe(201);
    const { sessions } = await json<{
      sessions: { session_id: string; token: string }[];
    }>(forked);
    expect(sessions.length).toBe(2);
    for (const f of sessions) {
      const res = await call(`/v1/sessions/${f.session_id}/step`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${f.token}`,
          "Content-Type": "application/json"
        },
        body: JSON.stringify({
          action: {
            tool_calls: [
              {
                id: "c",
                type: "function",
                function: { name: "answer", arguments: { value: 1 } }
              }
            ]
          }
        })
      });
      expect(res.status).toBe(200);
    }
    await step(s, "answer", { value: 0 });
    expect((await stats()).tasks).toMatchObject([
      { index: 1, attempts: 3, successes: 2 }
    ]);
  });

  it("page by split then index with next_cursor", async () => {
    for (const i of [0, 1, 2]) await episode(i, i, "train");
    await episode(4, 4);
    const seen: [string | null, number][] = [];
    let cursor: string | undefined;
    do {
      const page = await stats(
        `?limit=1${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      );
      expect(page.tasks.length).toBe(1);
      seen.push(
        ...page.tasks.map((t): [string | null, number] => [t.split, t.index])
      );
      cursor = page.next_cursor;
    } while (cursor !== undefined);
    expect(seen).toEqual([
      [null, 4],
      ["train", 0],
      ["train", 1],
      ["train", 2]
    ]);
  });

  it("reset one split or all of them", async () => {
    await episode(0, 0, "train");
    await episode(0, 0);
    const one = await call(`${STATS}?split=train`, { method: "DELETE" });
    expect(await json(one)).toEqual({
      environment: "pupil",
      split: "train",
      removed: 1
    });
    expect((await stats()).tasks).toMatchObject([{ split: null, index: 0 }]);
    const all = await call(STATS, { method: "DELETE" });
    expect(await json(all)).toEqual({ environment: "pupil", removed: 1 });
    expect((await stats()).tasks).toEqual([]);
  });

  it("refuse bad input with 4xx and change nothing", async () => {
    await episode(0, 0);
    const before = JSON.stringify(await stats());
    const cases: [string, CallInit | undefined, number][] = [
      ["/v1/environments/nope/task-stats", undefined, 404],
      [`${STATS}?split=nope`, undefined, 404],
      [`${STATS}?split=nope`, { method: "DELETE" }, 404],
      ["/v1/environments/nope/task-stats", { method: "DELETE" }, 404],
      [`${STATS}?group_size=0`, undefined, 400],
      [`${STATS}?group_size=x`, undefined, 400],
      [`${STATS}?limit=0`, undefined, 400],
      [`${STATS}?cursor=bogus`, undefined, 400],
      [`${STATS}?split=${"x".repeat(300)}`, { method: "DELETE" }, 400]
    ];
    for (const [path, init, status] of cases) {
      const res = await call(path, init);
      expect([path, res.status]).toEqual([path, status]);
      await errorOf(res);
    }
    const bodies: [unknown, number][] = [
      [{ group_size: 4 }, 400],
      [{ count: 1 }, 400],
      [{ group_size: 0, count: 1 }, 400],
      [{ group_size: 4, count: 0 }, 400],
      [{ group_size: 4, count: 5000 }, 400],
      [{ group_size: 4, count: 1, seed: -1 }, 400],
      [{ group_size: 4, count: 1, extra: true }, 400],
      [{ group_size: 4, count: 1, split: "nope" }, 404],
      [{ group_size: 4, count: 1, task_count: 6 }, 400],
      [{ group_size: 4, count: 1, split: "train", task_count: 4 }, 400],
      ["[]", 400]
    ];
    for (const [body, status] of bodies) {
      const res = await sample(body);
      expect([body, res.status]).toEqual([body, status]);
      await errorOf(res);
    }
    const truant = await call(
      "/v1/environments/truant/task-stats/sample",
      send("POST", { group_size: 2, count: 1 })
    );
    expect(truant.status).toBe(404);
    expect(JSON.stringify(await stats())).toBe(before);
  });

  it("need an API key when ROOST_API_KEYS is set", async () => {
    const keyed = withEnv({ ROOST_API_KEYS: "key-a" });
    await episode(0, 0);
    expect((await keyed(STATS)).status).toBe(401);
    expect((await keyed(STATS, { method: "DELETE" })).status).toBe(401);
    expect((await sample({ group_size: 2, count: 1 }, keyed)).status).toBe(401);
    expect((await stats()).tasks.length).toBe(1);
    const withKey = await keyed(STATS, {
      method: "DELETE",
      headers: { Authorization: "Bearer key-a" }
    });
    expect(withKey.status).toBe(200);
    expect((await stats()).tasks).toEqual([]);
  });
});
