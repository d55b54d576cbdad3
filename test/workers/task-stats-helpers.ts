/**
 * @module The task statistics' tests' calls: the pupil's statistics read
 * and sampled, the socket's answering step frame, and an episode of one
 * task played to its end or truncated.
 */

import { expect } from "vitest";
import type { TaskStatsResponse } from "../../src/protocol/http-task-stats";
import {
  call,
  createSession,
  json,
  send,
  step,
  type TestSession
} from "./helpers";

export const STATS = "/v1/environments/pupil/task-stats";

export const stats = async (query = ""): Promise<TaskStatsResponse> => {
  const res = await call(`${STATS}${query}`);
  expect(res.status).toBe(200);
  return json<TaskStatsResponse>(res);
};

/** The session socket's step frame answering `value`, with id "s". */
export const answerFrame = (value: number) => ({
  type: "step",
  id: "s",
  action: {
    tool_calls: [
      {
        id: "c",
        type: "function",
        function: { name: "answer", arguments: { value } }
      }
    ]
  }
});

export const sample = (body: unknown, via = call) =>
  via(`${STATS}/sample`, send("POST", body));

/** A session of task `index` (of `split`), reset, answering `value` (null: truncated by waiting). */
export const episode = async (
  index: number,
  value: number | null,
  split?: string
): Promise<TestSession> => {
  const s = await createSession({
    environment: "pupil",
    task_index: index,
    ...(split === undefined ? {} : { split })
  });
  expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
  if (value === null) for (let i = 0; i < 3; i++) await step(s, "wait");
  else await step(s, "answer", { value });
  return s;
};
