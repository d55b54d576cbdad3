/** @module A session's lifecycle and log: create, status, probation, delete, and the event log read over HTTP. */

import * as z from "zod";
import {
  EventsResponseSchema,
  InitialStateSchema,
  MaxBytesSchema,
  NameSchema,
  SessionStatusSchema
} from "../../protocol";
import { defineOperation } from "./define";

export const create = defineOperation({
  input: () =>
    z.object({
      sessionId: z.string(),
      environment: NameSchema(),
      task: z.unknown(),
      state: InitialStateSchema().optional()
    }),
  output: SessionStatusSchema,
  mutates: true,
  events: [],
  run: (rt, init) => rt.create(init)
});

export const status = defineOperation({
  input: () => z.object({}),
  output: SessionStatusSchema,
  mutates: false,
  events: [],
  run: (rt) => rt.status()
});

/** A session a client opened unasked (MCP initialize): short TTL until used. */
export const expectUse = defineOperation({
  input: () => z.object({}),
  mutates: true,
  events: [],
  run: (rt) => rt.expectUse()
});

export const destroy = defineOperation({
  input: () => z.object({}),
  mutates: true,
  events: [],
  run: (rt) => rt.destroy()
});

export const events = defineOperation({
  input: () =>
    z.object({
      after: z.number().int().optional(),
      limit: z.number().int().positive(),
      max_bytes: MaxBytesSchema().optional()
    }),
  output: EventsResponseSchema,
  mutates: false,
  events: [],
  run: (rt, q) => rt.readEvents(q.after, q.limit, q.max_bytes)
});
