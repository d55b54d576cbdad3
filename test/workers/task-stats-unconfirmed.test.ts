// An ended episode whose outcome the statistics did not take: the session
// keeps the count in its storage, through an eviction, and its next
// outcome that gets through reports it, so the statistics say how many
// episodes they may lack.

import { describe, expect, it } from "vitest";
import { replaceOutcomeSender } from "../../src/layers/task-stats/report";
import type { TaskStatsResponse } from "../../src/protocol/http-task-stats";
import { call, createSession, json, send, step } from "./helpers";
import { abort, inside, stubOf } from "./session-helpers";

const STATS = "/v1/environments/absentee/task-stats";

const stats = async (): Promise<TaskStatsResponse> => {
  const res = await call(STATS);
  expect(res.status).toBe(200);
  return json<TaskStatsResponse>(res);
};

const kept = (sessionId: string) =>
  inside(stubOf(sessionId), (_o, state) =>
    state.storage.sql
      .exec<{ value: string }>(
        "SELECT value FROM meta WHERE key = 'task_stats_unconfirmed'"
      )
      .toArray()
      .map((r) => r.value)
  );

describe("outcomes the statistics did not take", () => {
  it("are counted in the session's storage, and reported with its next outcome, after an eviction too", async () => {
    expect((await call(STATS, { method: "DELETE" })).status).toBe(200);
    const s = await createSession({ environment: "absentee", task_index: 1 });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    await inside(stubOf(s.session_id), (o) => {
      replaceOutcomeSender(o.runtime, () =>
        Promise.reject(new Error("the statistics are down"))
      );
    });
    // Answered and committed as usual; the statistics lack it.
    expect(await step(s, "answer", { value: 1 })).toMatchObject({
      done: true,
      reward: 2
    });
    expect(await stats()).toMatchObject({ tasks: [], unconfirmed: 0 });
    expect(await kept(s.session_id)).toEqual(["1"]);

    // A new instance of the object (its memory gone) sends the next one.
    await abort(stubOf(s.session_id));
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    await step(s, "answer", { value: 1 });
    const after = await stats();
    expect(after.tasks).toMatchObject([
      { index: 1, attempts: 1, successes: 1 }
    ]);
    expect(after.unconfirmed).toBe(1);
    expect(await kept(s.session_id)).toEqual([]);

    // Deleting every split's statistics forgets them too.
    expect((await call(STATS, { method: "DELETE" })).status).toBe(200);
    expect((await stats()).unconfirmed).toBe(0);
  });
});
