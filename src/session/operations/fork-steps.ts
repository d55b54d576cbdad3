/**
 * @module Forking as operations. Each side is a handful of internal steps
 * a driver (http/fork-driver.ts) calls in order; no route or frame reaches them
 * directly, and the import steps act only on objects a fork just made.
 */

import * as z from "zod";
import { lazy } from "../../lazy";
import { ForkRequestSchema } from "../../protocol";
import {
  abortImport,
  beginImport,
  endImport,
  importChunk as importRows
} from "../fork-import";
import {
  beginFork,
  endFork,
  ForkCursorSchema,
  ForkOriginSchema,
  forkChunk as readForkChunk
} from "../fork-source";
import { defineOperation } from "./define";

/** A retry of a fork with the same key and count gets the same copies. */
const forkKey = <I extends { count: number; step?: number }>() => ({
  scope: () => "fork",
  hashed: (input: I) =>
    input.step === undefined
      ? { count: input.count }
      : { count: input.count, step: input.step }
});

export const forkBegin = defineOperation({
  input: ForkRequestSchema,
  internal: true,
  scope: "control",
  mutates: true,
  idempotency: forkKey<{ count: number; step?: number }>(),
  events: [],
  handle: (rt, input, idem) =>
    beginFork(rt.shared, idem, () => rt.commits.throttle(), input.step)
});

export const forkChunk = defineOperation({
  input: () =>
    z.object({
      snap: z.string(),
      cursor: ForkCursorSchema(),
      maxBytes: z.number().int().positive().optional()
    }),
  internal: true,
  scope: "control",
  mutates: false,
  events: [],
  handle: (rt, { snap, cursor, maxBytes }) =>
    readForkChunk(rt.shared, snap, cursor, maxBytes)
});

export const forkEnd = defineOperation({
  input: () =>
    z.object({
      count: z.number().int(),
      snap: z.string(),
      /** The fork's answer, kept under its Idempotency-Key; absent when it failed. */
      response: z.unknown().optional()
    }),
  internal: true,
  scope: "control",
  mutates: true,
  idempotency: forkKey<{ count: number; snap: string; response?: unknown }>(),
  events: [],
  handle: (rt, { snap, response }, idem) =>
    endFork(rt.shared, snap, response, idem)
});

// Values as SQLite gave them; only a fork's own driver sends these.
const Rows = lazy(() => z.array(z.array(z.custom<SqlStorageValue>())));

export const importBegin = defineOperation({
  input: () => z.object({ sessionId: z.string(), origin: ForkOriginSchema() }),
  internal: true,
  scope: "control",
  mutates: true,
  events: [],
  handle: (rt, { sessionId, origin }) =>
    beginImport(rt.shared, sessionId, origin)
});

export const importChunk = defineOperation({
  input: () =>
    z.object({
      parts: z.array(
        z.object({ table: z.number().int().nonnegative(), rows: Rows() })
      )
    }),
  internal: true,
  scope: "control",
  mutates: true,
  events: [],
  handle: (rt, { parts }) => importRows(rt.shared, parts)
});

export const importEnd = defineOperation({
  input: () => z.object({}),
  internal: true,
  scope: "control",
  mutates: true,
  events: ["forked"],
  handle: (rt) => endImport(rt.shared)
});

export const importAbort = defineOperation({
  input: () => z.object({}),
  internal: true,
  scope: "control",
  mutates: true,
  events: [],
  handle: (rt) => abortImport(rt.shared)
});
