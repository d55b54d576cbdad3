/** @module Frames the server sends to one socket (no seq), and the union of everything it sends. */

import * as z from "zod";
import { lazy } from "../lazy";
import { RequestIdSchema } from "./client-frames";
import { KeyInfoSchema } from "./entries";
import { ErrorBodySchema } from "./error-body";
import { EventFrameSchema } from "./event-frames";
import { StateValuesSchema } from "./http-state";
import { JsonValueSchema } from "./json-value";
import { CursorSchema } from "./query";
import { SessionStatusSchema } from "./session-status";

/** The platform's fixed answer to `PING_FRAME`, sent even while the object hibernates. */
export const PONG_FRAME = '{"type":"pong"}';

/**
 * Sent on connect (and after `resume.expired`). Carries store keys with
 * counts, not entries: a large session is read by paging, not in one frame.
 */
export const SnapshotFrameSchema = lazy(() =>
  z
    .object({
      type: z.literal("session.snapshot"),
      status: SessionStatusSchema(),
      state: StateValuesSchema(),
      keys: z.array(KeyInfoSchema()),
      /** Events up to this seq are reflected; live events follow it. 0 if none yet. */
      last_seq: z.number().int().nonnegative(),
      /**
       * The oldest seq the log retains (0 if none): `GET …/events?after=`
       * and `resume` reach back to it, and not before.
       */
      oldest_seq: z.number().int().nonnegative(),
      /**
       * Set when the snapshot could not hold all the state or all the keys
       * within the read budget: read on with `GET …/state?cursor=` and
       * `GET …/environment/keys?cursor=` from these cursors.
       */
      truncated: z.literal(true).optional(),
      state_next_cursor: CursorSchema().optional(),
      keys_next_cursor: CursorSchema().optional()
    })
    .meta({ id: "SnapshotFrame", description: "The session as it stands." })
);

export const ReplyOkFrameSchema = lazy(() =>
  z
    .object({
      type: z.literal("reply"),
      id: RequestIdSchema(),
      ok: z.literal(true),
      /** What the matching HTTP route would have answered. */
      value: JsonValueSchema()
    })
    .meta({ id: "ReplyOkFrame", description: "A request succeeded." })
);

export const ReplyErrorFrameSchema = lazy(() =>
  z
    .object({
      type: z.literal("reply"),
      id: RequestIdSchema(),
      ok: z.literal(false),
      error: ErrorBodySchema()
    })
    .meta({ id: "ReplyErrorFrame", description: "A request failed." })
);

export const ReplyFrameSchema = lazy(() =>
  z
    .discriminatedUnion("ok", [ReplyOkFrameSchema(), ReplyErrorFrameSchema()])
    .meta({ id: "ReplyFrame", description: "The answer to a client request." })
);
export type ReplyFrame = z.infer<ReturnType<typeof ReplyFrameSchema>>;

export const ProtocolErrorFrameSchema = lazy(() =>
  z
    .object({
      type: z.literal("protocol.error"),
      error: ErrorBodySchema(),
      /** The bad frame's id, when it had a readable one. */
      id: RequestIdSchema().optional()
    })
    .meta({
      id: "ProtocolErrorFrame",
      description: "A frame was rejected; the socket stays open."
    })
);

export const ResumeExpiredFrameSchema = lazy(() =>
  z
    .object({
      type: z.literal("resume.expired"),
      after: z.number().int().nonnegative(),
      /** The oldest retained seq; a fresh snapshot follows. */
      oldest_seq: z.number().int().nonnegative()
    })
    .meta({
      id: "ResumeExpiredFrame",
      description: "The asked-for events are no longer retained."
    })
);

export const PongFrameSchema = lazy(() =>
  z
    .object({ type: z.literal("pong") })
    .meta({ id: "PongFrame", description: "The answer to a ping." })
);

export const ConnectionFrameSchema = lazy(() =>
  z
    .discriminatedUnion("type", [
      SnapshotFrameSchema(),
      ReplyFrameSchema(),
      ProtocolErrorFrameSchema(),
      ResumeExpiredFrameSchema(),
      PongFrameSchema()
    ])
    .meta({
      id: "ConnectionFrame",
      description: "A frame for one socket, without seq."
    })
);
export type ConnectionFrame = z.infer<ReturnType<typeof ConnectionFrameSchema>>;

/**
 * Events that became ready together (a step's messages, tool frames,
 * results and `step`), in seq order, in one message. Each keeps its own
 * seq, so resuming works at any event boundary. A lone event is sent as
 * itself; `?batch=0` on the socket URL asks for one event per message.
 */
export const BatchFrameSchema = lazy(() =>
  z
    .object({
      type: z.literal("batch"),
      events: z.array(EventFrameSchema()).min(2)
    })
    .meta({
      id: "BatchFrame",
      description: "Two or more events, in seq order, in one message."
    })
);
export type BatchFrame = z.infer<ReturnType<typeof BatchFrameSchema>>;

export const ServerFrameSchema = lazy(() =>
  z
    .discriminatedUnion("type", [
      ...EventFrameSchema().options,
      BatchFrameSchema(),
      ...ConnectionFrameSchema().options
    ])
    .meta({ id: "ServerFrame", description: "Any frame the server sends." })
);
export type ServerFrame = z.infer<ReturnType<typeof ServerFrameSchema>>;
export type ServerFrameType = ServerFrame["type"];
