/** @module A session's lifecycle and log: create, status, probation, delete, and the event log read over HTTP. */

import * as z from "zod";
import { RoostError } from "../../errors";
import {
  type EventsResponse,
  EventsResponseSchema,
  InitialStateSchema,
  MaxBytesSchema,
  NameSchema,
  type SessionStatus,
  SessionStatusSchema
} from "../../protocol";
import { visibleTo } from "../../protocol/agents";
import {
  READ_BYTES,
  ReadBudget,
  truncatedField
} from "../../protocol/read-budget";
import type { EventLog } from "../../storage/event-log";
import { markAwaitingUse } from "../../storage/first-use";
import { SCHEMA_VERSION, schemaVersion } from "../../storage/schema";
import {
  insertSessionRow,
  readSessionRow,
  touchSession
} from "../../storage/session-row";
import { closeSession } from "../close";
import type { SessionShared } from "../shared";
import { defineOperation } from "./define";

/** Where the session stands; reading it counts as use. */
export const sessionStatus = (shared: SessionShared): SessionStatus => {
  const row = shared.requireRow();
  shared.seen(row);
  return {
    session_id: row.sessionId,
    environment: row.environment,
    episode: row.episode,
    steps: row.steps,
    reward: row.reward,
    return: row.total,
    done: row.done,
    truncated: row.truncated,
    status:
      row.episode === 0
        ? "created"
        : row.done
          ? "done"
          : row.truncated
            ? "truncated"
            : "running",
    created_at: new Date(row.createdAt).toISOString(),
    last_used_at: new Date(shared.lastUsed(row)).toISOString()
  };
};

/**
 * The one rule for a resume point, over HTTP and on the socket: a seq
 * past the newest is a client's mistake (400); one whose next events were
 * trimmed is `gone` (410).
 */
export const checkResumePoint = (log: EventLog, after: number): void => {
  if (after > log.lastSeq) {
    throw new RoostError(
      "invalid_request",
      `after=${after} is past this session's last seq, ${log.lastSeq}: resume from a seq you were sent.`,
      { field: "after", last_seq: log.lastSeq }
    );
  }
  const oldest = log.oldestSeq;
  if (oldest > 0 && after < oldest - 1) {
    throw new RoostError(
      "gone",
      `Events after ${after} are no longer retained; the oldest is ${oldest}. Read the session afresh (GET the snapshot routes) and continue from its last seq.`,
      { oldest_seq: oldest }
    );
  }
};

export const create = defineOperation({
  input: () =>
    z.object({
      sessionId: z.string(),
      environment: NameSchema(),
      task: z.unknown(),
      // The dataset task `task` was picked from, when it was.
      taskRef: z
        .object({
          split: z.string().nullable(),
          index: z.number().int().min(0)
        })
        .optional(),
      state: InitialStateSchema().optional()
    }),
  output: SessionStatusSchema,
  internal: true,
  scope: "control",
  mutates: true,
  // The id is new, so a session already there is this request's own.
  again: { refused: "conflict", answer: "status" },
  events: [],
  handle: async ({ shared }, init) => {
    if (schemaVersion(shared.sql) !== undefined) {
      throw new RoostError("conflict", "This session already exists.");
    }
    shared.registry.get(init.environment);
    const now = shared.now();
    // One statement (and the table it makes on first use, tables.ts):
    // the row, its idle timer and its schema version.
    shared.storage.transactionSync(() =>
      insertSessionRow(
        shared.sql,
        {
          sessionId: init.sessionId,
          environment: init.environment,
          task: init.task,
          taskRef: init.taskRef ?? null,
          ...(init.state === undefined ? {} : { initialState: init.state }),
          episode: 0,
          episodeTask: null,
          steps: 0,
          reward: 0,
          total: 0,
          done: false,
          truncated: false,
          createdAt: now,
          lastUsedAt: now,
          inflight: null
        },
        now + shared.options.idleTtlMs,
        SCHEMA_VERSION
      )
    );
    await shared.schedule.arm();
    return sessionStatus(shared);
  }
});

export const status = defineOperation({
  input: () => z.object({}),
  output: SessionStatusSchema,
  scope: "observe",
  agent: "shared",
  mutates: false,
  events: [],
  handle: ({ shared }) => sessionStatus(shared)
});

/**
 * Puts a session a client opened unasked (MCP's initialize, Aviary's
 * start) on probation: unless a later request uses it, it is deleted after
 * `unusedTtlMs` idle instead of `idleTtlMs` (first-use.ts).
 */
export const expectUse = defineOperation({
  input: () => z.object({}),
  internal: true,
  scope: "control",
  mutates: true,
  again: "harmless",
  events: [],
  handle: async ({ shared }) => {
    shared.requireRow();
    const now = shared.now();
    shared.storage.transactionSync(() => {
      markAwaitingUse(shared.sql);
      touchSession(shared.sql, now);
      shared.schedule.set("ttl", now + shared.options.unusedTtlMs);
    });
    shared.committed(readSessionRow(shared.sql)!);
    shared.awaitingUse();
    await shared.schedule.arm();
  }
});

/** Deletes every row and the alarm; later requests find no session (404). */
export const destroy = defineOperation({
  input: () => z.object({}),
  scope: "control",
  mutates: true,
  again: { refused: "not_found" },
  events: [],
  handle: async (rt) => {
    const shared = rt.shared;
    shared.requireRow();
    await shared.queue.run(() => closeSession(shared, "deleted"));
    rt.onGone();
  }
});

/**
 * The event log over HTTP: `limit` events and `max_bytes` at most after
 * `after`, or from the oldest retained when `after` is absent.
 */
export const events = defineOperation({
  input: () =>
    z.object({
      after: z.number().int().optional(),
      limit: z.number().int().positive(),
      max_bytes: MaxBytesSchema().optional()
    }),
  output: EventsResponseSchema,
  scope: "observe",
  agent: "view",
  mutates: false,
  events: [],
  handle: ({ shared }, q, _idem, grant): EventsResponse => {
    shared.seen(shared.requireRow());
    const log = shared.events;
    const after = q.after ?? Math.max(0, log.oldestSeq - 1);
    checkResumePoint(log, after);
    const budget = new ReadBudget(q.max_bytes ?? READ_BYTES.default);
    // The log holds what the protocol's event schemas describe, as JSON.
    const read = log
      .page(after, q.limit, budget)
      .map((e) => JSON.parse(e.text) as EventsResponse["events"][number]);
    // An agent's page may hold fewer events than were read for it; the
    // next page starts after what was read.
    const agent = grant?.agent;
    return {
      events:
        agent === undefined ? read : read.filter((e) => visibleTo(e, agent)),
      next_after: read.at(-1)?.seq ?? Math.max(after, 0),
      ...truncatedField(budget)
    };
  }
});
