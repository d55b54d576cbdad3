/** @module Event frames: every change to a session, broadcast and persisted with a per-session `seq`. */

import * as z from "zod";
import { lazy } from "../lazy";
import { agentsFields } from "./agents";
import { displayFields } from "./entries";
import { JsonObjectSchema, JsonValueSchema } from "./json-value";
import { NameSchema } from "./limits";
import { WireMessageSchema } from "./messages";
import { RewardComponentsSchema } from "./reward-components";
import { TimestampSchema } from "./session-status";
import { UPDATE_KINDS } from "./update-kinds";

const Position = lazy(() => z.number().int().nonnegative());

/** Fields every event frame carries besides its `type`. */
const base = lazy(() => ({
  /** Per session, strictly increasing, never reused (also across episodes). */
  seq: z.number().int().positive(),
  at: TimestampSchema(),
  /** 0 before the first reset. */
  episode: z.number().int().nonnegative()
}));

const event = <T extends string, S extends z.core.$ZodLooseShape>(
  type: T,
  shape: S,
  description: string
) =>
  z
    .object({ type: z.literal(type), ...base(), ...shape })
    .meta({ id: eventId(type), description });

// "store.changed" → "StoreChangedEvent": component names cannot contain dots.
const eventId = (type: string): string =>
  `${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("")}Event`;

export const ResultEventSchema = lazy(() =>
  event(
    "result",
    {
      tool: NameSchema(),
      name: NameSchema(),
      index: Position(),
      objects: z.array(JsonObjectSchema()),
      metadata: JsonObjectSchema(),
      display: z.boolean(),
      ...displayFields(),
      call_id: z.string().optional(),
      /**
       * Present when a large result was split to fit the event log's row
       * limit: parts share tool, name and index and concatenate in order.
       */
      part: z
        .object({ index: Position(), count: z.number().int().positive() })
        .optional()
    },
    "A tool stored a result."
  )
);

export const StoreChangedEventSchema = lazy(() =>
  event(
    "store.changed",
    {
      op: z.enum(["add", "replace", "remove"]),
      tool: NameSchema(),
      name: NameSchema(),
      /** Absent when the whole key's list was replaced or removed. */
      index: Position().optional()
    },
    "The environment store changed under one key."
  )
);

export const StateChangedEventSchema = lazy(() =>
  event(
    "state.changed",
    { key: z.string(), value: JsonValueSchema() },
    "A state key has a new value."
  )
);

export const MessageEventSchema = lazy(() =>
  event(
    "message",
    { message: WireMessageSchema(), index: Position() },
    "A message was appended to the transcript."
  )
);

export const ToolStartedEventSchema = lazy(() =>
  event(
    "tool.started",
    {
      call_id: z.string(),
      tool: z.string(),
      /** Parsed arguments, or the model's raw string when it was not JSON. */
      arguments: z.union([JsonObjectSchema(), z.string()])
    },
    "A tool call started."
  )
);

/**
 * What a tool's own code threw, for its author. The model's tool message
 * carries the message only, never this. The stack is sent only by a
 * server in development (ROOST_DEV=1): in production it would show the
 * worker's internals to whoever holds the session's token, and the
 * operator reads it in the worker's logs instead.
 */
export const ToolExceptionSchema = lazy(() =>
  z
    .object({
      message: z.string(),
      /** The thrown Error's stack: in development only, and only when an Error was thrown. */
      stack: z.string().optional()
    })
    .meta({
      id: "ToolException",
      description:
        "What the tool's code threw (not a refusal of the model's call, not a timeout). The stack is sent in development (ROOST_DEV=1) only."
    })
);

export const ToolFinishedEventSchema = lazy(() =>
  event(
    "tool.finished",
    {
      call_id: z.string(),
      tool: z.string(),
      /** True for every failure: a refused call, a timeout, an exception. */
      is_error: z.boolean(),
      /** Present when the tool's own code threw. */
      exception: ToolExceptionSchema().optional()
    },
    "A tool call finished."
  )
);

export const UpdateEventSchema = lazy(() =>
  event(
    "update",
    {
      kind: z.enum(UPDATE_KINDS),
      payload: JsonObjectSchema(),
      call_id: z.string().optional()
    },
    "Progress a tool reported; never stored in the environment."
  )
);

export const StepEventSchema = lazy(() =>
  event(
    "step",
    {
      step: z.number().int().positive(),
      reward: z.number(),
      done: z.boolean(),
      truncated: z.boolean(),
      reward_components: RewardComponentsSchema().optional(),
      ...agentsFields()
    },
    "A step committed."
  )
);

export const StepAbortedEventSchema = lazy(() =>
  event(
    "step.aborted",
    {
      step: z.number().int().positive().optional(),
      /** Discard frames of this episode from this seq up to this frame. */
      first_seq: z.number().int().positive()
    },
    "A step crashed before it committed: its frames did not happen."
  )
);

export const ResetEventSchema = lazy(() =>
  event("reset", {}, "An episode started.")
);

export const ForkedEventSchema = lazy(() =>
  event(
    "forked",
    {
      /** The session this one was copied from. */
      source: z.string(),
      /** The source's last event when it was copied: the copy is that moment. */
      source_seq: z.number().int().nonnegative()
    },
    "The session was made as a copy of another (always its first event)."
  )
);

export const ModelCallEventSchema = lazy(() =>
  event(
    "model.call",
    {
      /** 1-based within the episode: its record is GET …/model/calls's. */
      call: z.number().int().positive(),
      model: z.string(),
      /** The upstream's HTTP status, or the gateway's own. */
      status: z.number().int(),
      /** Why the model stopped, when the call succeeded. */
      finish_reason: z.string().optional(),
      /** Token ids captured, when the call succeeded and the upstream gave them. */
      tokens: z
        .object({ prompt: Position(), completion: Position() })
        .optional(),
      /**
       * The prompt does not extend the previous call's tokens. Written on
       * every event, `false` when it does; an event stored before it was
       * always written has none, where readers take absent as `false`.
       */
      break: z.boolean().optional()
    },
    "A call through the session's model gateway ended and was recorded."
  )
);

const treeShape = lazy(() => ({
  run_id: z.string().optional(),
  payload: JsonObjectSchema()
}));

export const TreeNodeEventSchema = lazy(() =>
  event(
    "tree.node",
    {
      run_id: z.string(),
      payload: z.object({
        /** 1-based pass of the run. */
        pass: z.number().int().positive(),
        /** `root`, a branch id, or `<node>.<tool>` for follow-ups (see the environment's tree). */
        node: z.string()
      })
    },
    "A decision-tree run arrived at a node, before deciding there: where the run is while the model thinks."
  )
);

export const TreeDecisionEventSchema = lazy(() =>
  event("tree.decision", treeShape(), "A decision tree chose its next step.")
);

export const TreeCompletedEventSchema = lazy(() =>
  event("tree.completed", treeShape(), "A decision tree run finished.")
);

export const EventFrameSchema = lazy(() =>
  z
    .discriminatedUnion("type", [
      ResultEventSchema(),
      StoreChangedEventSchema(),
      StateChangedEventSchema(),
      MessageEventSchema(),
      ToolStartedEventSchema(),
      ToolFinishedEventSchema(),
      UpdateEventSchema(),
      StepEventSchema(),
      StepAbortedEventSchema(),
      ResetEventSchema(),
      ForkedEventSchema(),
      ModelCallEventSchema(),
      TreeNodeEventSchema(),
      TreeDecisionEventSchema(),
      TreeCompletedEventSchema()
    ])
    .meta({ id: "EventFrame", description: "A persisted session event." })
);
export type EventFrame = z.infer<ReturnType<typeof EventFrameSchema>>;
export type EventType = EventFrame["type"];
/** The frame of one event type. */
export type EventOf<T extends EventType> = Extract<EventFrame, { type: T }>;

export const EVENT_TYPES = lazy((): readonly EventType[] =>
  EventFrameSchema().options.map((o) => o.shape.type.value)
);

/** What a producer gives for an event: the log adds `type`, `seq`, `at` and `episode`. */
export type EventData<T extends EventType> = Omit<
  EventOf<T>,
  "type" | "seq" | "at" | "episode"
>;

/** Emits one event of a known type with exactly that type's fields. */
export type Emit = <T extends EventType>(type: T, data: EventData<T>) => void;
