/** @module Frames a client sends on the WebSocket. */

import * as z from "zod";
import { lazy } from "../lazy";
import { ForkRequestSchema, ResetRequestSchema } from "./http-sessions";
import { JsonObjectSchema } from "./json-value";
import { NameSchema } from "./limits";
import { ActionSchema } from "./messages";

/**
 * The exact ping the platform answers while the object hibernates
 * (`setWebSocketAutoResponse`): any other spelling wakes the object.
 */
export const PING_FRAME = '{"type":"ping"}';

/** Chosen by the client; echoed in the `reply` (or `protocol.error`) for this frame. */
export const RequestIdSchema = lazy(() => z.string().min(1).max(256));

/** Same meaning as the HTTP `Idempotency-Key` header, scoped to the session and frame type. */
export const IdempotencyKeySchema = lazy(() => z.string().min(1).max(256));

export const StepFrameSchema = lazy(() =>
  z
    .strictObject({
      type: z.literal("step"),
      id: RequestIdSchema(),
      idempotency_key: IdempotencyKeySchema().optional(),
      action: ActionSchema(),
      agent: NameSchema().optional()
    })
    .meta({
      id: "StepFrame",
      description: "Steps the session, like POST …/step."
    })
);

/** The HTTP reset body, its checks included, with a frame's own fields. */
export const ResetFrameSchema = lazy(() =>
  ResetRequestSchema()
    .extend({
      type: z.literal("reset"),
      id: RequestIdSchema(),
      idempotency_key: IdempotencyKeySchema().optional()
    })
    .meta({ id: "ResetFrame", description: "Resets the session." })
);

export const CallFrameSchema = lazy(() =>
  z
    .strictObject({
      type: z.literal("call"),
      id: RequestIdSchema(),
      idempotency_key: IdempotencyKeySchema().optional(),
      tool: NameSchema(),
      arguments: JsonObjectSchema().default({})
    })
    .meta({ id: "CallFrame", description: "Invokes one tool directly." })
);

export const ForkFrameSchema = lazy(() =>
  z
    .strictObject({
      type: z.literal("fork"),
      id: RequestIdSchema(),
      idempotency_key: IdempotencyKeySchema().optional(),
      count: ForkRequestSchema().shape.count,
      step: ForkRequestSchema().shape.step
    })
    .meta({
      id: "ForkFrame",
      description:
        "Copies the session, like POST …/fork; the reply lists the copies."
    })
);

export const CancelFrameSchema = lazy(() =>
  z
    .strictObject({
      type: z.literal("cancel"),
      id: RequestIdSchema(),
      run_id: z.string().min(1).max(256)
    })
    .meta({ id: "CancelFrame", description: "Asks a run to stop." })
);

/**
 * Any operation a client may run, by its name in the operation table,
 * with the input its HTTP route or RPC takes: the frames above are the
 * common ones by name, this reaches the rest (reads included) without a
 * frame type of its own. An unknown name, or one only the server's own
 * protocols use (creation, forks), is refused in the reply.
 */
export const OpFrameSchema = lazy(() =>
  z
    .strictObject({
      type: z.literal("op"),
      id: RequestIdSchema(),
      idempotency_key: IdempotencyKeySchema().optional(),
      op: z.string().min(1).max(64),
      input: JsonObjectSchema().default({})
    })
    .meta({
      id: "OpFrame",
      description:
        "Runs an operation by name (status, readState, messages, …): its reply's value is the operation's answer."
    })
);

export const ResumeFrameSchema = lazy(() =>
  z
    .strictObject({
      type: z.literal("resume"),
      /** Replays every retained event with a greater seq, then the live stream. */
      after: z.number().int().nonnegative()
    })
    .meta({ id: "ResumeFrame", description: "Replays events after a seq." })
);

/**
 * Optional flow control: a client that acknowledges what it processed is
 * closed with 4408 once it falls too far behind, instead of letting the
 * object buffer frames for it without bound.
 */
export const AckFrameSchema = lazy(() =>
  z
    .strictObject({
      type: z.literal("ack"),
      /** The newest seq the client has processed. */
      seq: z.number().int().nonnegative()
    })
    .meta({ id: "AckFrame", description: "Acknowledges events up to a seq." })
);

export const PingFrameSchema = lazy(() =>
  z
    .strictObject({ type: z.literal("ping") })
    .meta({ id: "PingFrame", description: "Answered by a pong." })
);

export const ClientFrameSchema = lazy(() =>
  z
    .discriminatedUnion("type", [
      StepFrameSchema(),
      ResetFrameSchema(),
      CallFrameSchema(),
      ForkFrameSchema(),
      CancelFrameSchema(),
      OpFrameSchema(),
      ResumeFrameSchema(),
      AckFrameSchema(),
      PingFrameSchema()
    ])
    .meta({ id: "ClientFrame", description: "A frame a client sends." })
);
export type ClientFrame = z.infer<ReturnType<typeof ClientFrameSchema>>;
/** What a client may write: defaults (`role`, `arguments`) may be left out. */
export type ClientFrameInput = z.input<ReturnType<typeof ClientFrameSchema>>;
export type ClientFrameType = ClientFrame["type"];

export const CLIENT_FRAME_TYPES = lazy((): readonly ClientFrameType[] =>
  ClientFrameSchema().options.map((o) => o.shape.type.value)
);
