/**
 * @module A tool-call task as its status answers it: what it ended with,
 * what its call asked and waits on, its message, and its wire form.
 */

import { RoostError } from "../../errors";
import type { JsonObject } from "../../json";
import { type CallTaskStatus, TASK_TTL_MS } from "../../protocol";
import type { JobInput, JobOutcome, TaskRow } from "../../storage/task-rows";

/** What a task suggests between polls. */
const POLL_INTERVAL_MS = 1_000;

export const clampTtl = (asked: number | undefined): number =>
  asked === undefined
    ? TASK_TTL_MS.default
    : Math.min(TASK_TTL_MS.max, Math.max(TASK_TTL_MS.min, Math.round(asked)));

/** What the task ended with, if it ended; not what its call asked meanwhile. */
const outcomeOf = (task: TaskRow): JobOutcome | undefined =>
  task.outcome === undefined || "input" in task.outcome
    ? undefined
    : task.outcome;

export const inputOf = (task: TaskRow): JobInput["input"] | undefined =>
  task.outcome !== undefined && "input" in task.outcome
    ? task.outcome.input
    : undefined;

const statusMessage = (task: TaskRow): string | undefined => {
  if (task.status === "cancelled")
    return "Cancelled by the client; a call already running when it was cancelled still took effect.";
  if (task.status === "input_required")
    return "The call waits for its client's answers (tasks/update).";
  const outcome = outcomeOf(task);
  if (outcome === undefined) return undefined;
  if ("error" in outcome) return outcome.error.message;
  return outcome.result.is_error
    ? "The tool reported an error; its result says what."
    : undefined;
};

/** The wire form; `full` adds the outcome (a list leaves it out). */
export const toStatus = (task: TaskRow, full: boolean): CallTaskStatus => {
  const message = statusMessage(task);
  const outcome = full ? outcomeOf(task) : undefined;
  const asked =
    task.status === "input_required" ? inputOf(task)?.asked : undefined;
  return {
    task_id: task.taskId,
    status: task.status,
    ...(message === undefined ? {} : { status_message: message }),
    created_at: new Date(task.createdAt).toISOString(),
    updated_at: new Date(task.updatedAt).toISOString(),
    ttl_ms: task.expiresAt - task.createdAt,
    poll_interval_ms: POLL_INTERVAL_MS,
    ...(outcome === undefined
      ? {}
      : "error" in outcome
        ? { error: outcome.error }
        : { result: outcome.result }),
    ...(asked === undefined
      ? {}
      : { input_requests: asked as Record<string, JsonObject> })
  };
};

export const isTerminal = (task: TaskRow): boolean =>
  task.status !== "working" && task.status !== "input_required";

const CURSOR = /^(\d{1,15}):([\w-]{1,64})$/;

/** Where a page of tasks begins: after the task a previous page's cursor names. */
export const afterCursor = (
  cursor: string
): { createdAt: number; taskId: string } => {
  const m = CURSOR.exec(cursor);
  if (m === null) {
    throw new RoostError(
      "invalid_request",
      "Invalid cursor: pass a previous page's next cursor.",
      { field: "cursor" }
    );
  }
  return { createdAt: Number(m[1]), taskId: m[2] as string };
};

/**
 * What the client's answers make of what a call asked: kept when asked,
 * ignored otherwise; the task runs again once nothing asked is left.
 */
export const withAnswers = (
  input: JobInput["input"],
  responses: Record<string, JsonObject>
): { status: "working" | "input_required"; next: JobInput } => {
  const answers = { ...input.answers };
  const asked = { ...input.asked };
  for (const [name, answer] of Object.entries(responses)) {
    if (!Object.hasOwn(asked, name)) continue;
    answers[name] = answer;
    delete asked[name];
  }
  return {
    status: Object.keys(asked).length === 0 ? "working" : "input_required",
    next: { input: { ...input, asked, answers } }
  };
};

/**
 * Ids sort in creation order (a list pages by them): the time, a count
 * for tasks of the same millisecond, then randomness, so an id cannot be
 * guessed from another.
 */
export const newTaskId = (now: number, count: number): string =>
  `${now.toString(36).padStart(9, "0")}${(count % 1296).toString(36).padStart(2, "0")}-${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;

/** A new task's input: an MCP client that declared what it can answer may be asked. */
export const firstInput = (
  capabilities: JsonObject | undefined,
  answers: Record<string, JsonObject> | undefined
): { outcome?: JobInput } =>
  capabilities === undefined
    ? {}
    : {
        outcome: { input: { capabilities, asked: {}, answers: answers ?? {} } }
      };
