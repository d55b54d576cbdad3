/** @module Request and response bodies of the session routes: create, reset, step, status, delete. */

import * as z from "zod";
import { lazy } from "../lazy";
import { agentsFields } from "./agents";
import { JsonValueSchema } from "./json-value";
import { NameSchema } from "./limits";
import { ActionSchema, WireMessageSchema } from "./messages";
import { OpenAIToolSchema } from "./openai-tool";
import { RewardComponentsSchema } from "./reward-components";

/** A session id in a path. Loose on purpose: an id the platform rejects is answered like a wrong token (403), not 400. */
export const SessionIdSchema = lazy(() => z.string().min(1).max(256));

export const SessionParamsSchema = lazy(() =>
  z.object({ id: SessionIdSchema() })
);
export type SessionParams = z.infer<ReturnType<typeof SessionParamsSchema>>;

/** Cloudflare's Durable Object location hints. */
export const LocationHintSchema = lazy(() =>
  z.enum(["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"])
);
export type LocationHint = z.infer<ReturnType<typeof LocationHintSchema>>;

export const JurisdictionSchema = lazy(() => z.enum(["eu", "fedramp"]));
export type Jurisdiction = z.infer<ReturnType<typeof JurisdictionSchema>>;

/**
 * State values an episode starts from: key → value, over the keys' zod
 * defaults and before the environment's reset runs.
 */
export const InitialStateSchema = lazy(() =>
  z.record(z.string(), JsonValueSchema()).meta({
    id: "InitialState",
    description: "State values an episode starts from (key → value)."
  })
);
export type InitialState = z.infer<ReturnType<typeof InitialStateSchema>>;

/** A dataset index, or the seed of a generated split. */
export const TaskIndexSchema = lazy(() => z.number().int().nonnegative());

/** A split is only a place to pick from: it needs the index. */
export const splitNeedsIndex = (body: {
  split?: string | undefined;
  task_index?: number | undefined;
}): boolean => body.split === undefined || body.task_index !== undefined;
export const SPLIT_NEEDS_INDEX = {
  message: '"split" needs "task_index": the index of the task in the split.',
  path: ["split"]
};

export const CreateSessionRequestSchema = lazy(() =>
  z
    .strictObject({
      environment: NameSchema(),
      /** A task for the environment's task schema; the environment validates it. */
      task: JsonValueSchema().optional(),
      /** An index into the environment's dataset (or `split`), instead of a task. */
      task_index: TaskIndexSchema().optional(),
      /** The named split `task_index` picks from; the default dataset without it. */
      split: NameSchema().optional(),
      /**
       * Values the state starts from at every reset that gives none (Haystack's
       * `State(schema, data)`), each checked like a write; a bad one is a 400
       * and creates nothing.
       */
      state: InitialStateSchema().optional(),
      location_hint: LocationHintSchema().optional(),
      jurisdiction: JurisdictionSchema().optional()
    })
    .refine(
      (body) => body.task === undefined || body.task_index === undefined,
      {
        message: 'Give "task" or "task_index", not both.',
        path: ["task_index"]
      }
    )
    .refine(splitNeedsIndex, SPLIT_NEEDS_INDEX)
    .meta({ id: "CreateSessionRequest", description: "Creates a session." })
);
export type CreateSessionRequest = z.infer<
  ReturnType<typeof CreateSessionRequestSchema>
>;

export const CreateSessionResponseSchema = lazy(() =>
  z
    .object({
      session_id: z.string(),
      /** Bearer token for this session's routes and WebSocket. */
      token: z.string(),
      environment: NameSchema(),
      ws_url: z.string()
    })
    .meta({ id: "CreateSessionResponse", description: "A new session." })
);
export type CreateSessionResponse = z.infer<
  ReturnType<typeof CreateSessionResponseSchema>
>;

/** Most copies one fork makes: each is a Durable Object written chunk by chunk. */
export const MAX_FORK_COUNT = 64;

export const ForkRequestSchema = lazy(() =>
  z
    .strictObject({
      /** How many copies (default 1). */
      count: z.number().int().min(1).max(MAX_FORK_COUNT).default(1),
      /**
       * Copy the current episode as it stood right after this step (1 to
       * its step count) rather than now: for a branchable environment
       * whose log still holds the episode from its reset.
       */
      step: z.number().int().min(1).optional()
    })
    .meta({
      id: "ForkRequest",
      description:
        "Copies the session as it stands after its last committed step, or as it stood right after an earlier step of the current episode (`step`)."
    })
);
export type ForkRequest = z.infer<ReturnType<typeof ForkRequestSchema>>;

export const ForkedSessionSchema = lazy(() =>
  z
    .object({
      session_id: z.string(),
      /** Each copy has a token of its own; the source's does not admit to it. */
      token: z.string(),
      ws_url: z.string()
    })
    .meta({ id: "ForkedSession", description: "One copy." })
);
export type ForkedSession = z.infer<ReturnType<typeof ForkedSessionSchema>>;

export const ForkResponseSchema = lazy(() =>
  z
    .object({
      /** The session copied. */
      source: z.string(),
      /** The source's last event seq at the copied moment. */
      seq: z.number().int().nonnegative(),
      /** Rows and bytes each copy received: the current episode's store, hidden store, state, transcript and tree data. */
      copied: z.object({
        rows: z.number().int().nonnegative(),
        bytes: z.number().int().nonnegative()
      }),
      sessions: z.array(ForkedSessionSchema())
    })
    .meta({ id: "ForkResponse", description: "The copies, all complete." })
);
export type ForkResponse = z.infer<ReturnType<typeof ForkResponseSchema>>;

export const ResetRequestSchema = lazy(() =>
  z
    .strictObject({
      /** Defaults to the task given when the session was created. */
      task: JsonValueSchema().optional(),
      /** Picks the episode's task from the dataset (or `split`) instead. */
      task_index: TaskIndexSchema().optional(),
      split: NameSchema().optional(),
      /** Defaults to the state given when the session was created. */
      state: InitialStateSchema().optional()
    })
    .refine(
      (body) => body.task === undefined || body.task_index === undefined,
      {
        message: 'Give "task" or "task_index", not both.',
        path: ["task_index"]
      }
    )
    .refine(splitNeedsIndex, SPLIT_NEEDS_INDEX)
    .meta({ id: "ResetRequest", description: "Starts a new episode." })
);
export type ResetRequest = z.infer<ReturnType<typeof ResetRequestSchema>>;

export const ResetResponseSchema = lazy(() =>
  z
    .object({
      observations: z.array(WireMessageSchema()),
      tools: z.array(OpenAIToolSchema()),
      /** A multi-agent environment's first turn: who may take the first step. */
      turn: z.array(NameSchema()).optional()
    })
    .meta({
      id: "ResetResponse",
      description: "The first observations and the tools."
    })
);
export type ResetResponse = z.infer<ReturnType<typeof ResetResponseSchema>>;

export const StepRequestSchema = lazy(() =>
  z
    .strictObject({
      action: ActionSchema(),
      /** A multi-agent environment's agent acting; the one whose turn it is when left out. */
      agent: NameSchema().optional()
    })
    .meta({ id: "StepRequest", description: "One action of the agent." })
);
export type StepRequest = z.infer<ReturnType<typeof StepRequestSchema>>;
export type StepRequestInput = z.input<ReturnType<typeof StepRequestSchema>>;

export const StepResponseSchema = lazy(() =>
  z
    .object({
      observations: z.array(WireMessageSchema()),
      reward: z.number(),
      done: z.boolean(),
      truncated: z.boolean(),
      reward_components: RewardComponentsSchema().optional(),
      ...agentsFields()
    })
    .meta({ id: "StepResponse", description: "What the step observed." })
);
export type StepResponse = z.infer<ReturnType<typeof StepResponseSchema>>;

export const DeleteSessionResponseSchema = lazy(() =>
  z.object({ session_id: z.string(), deleted: z.literal(true) }).meta({
    id: "DeleteSessionResponse",
    description: "The session and all its storage are gone."
  })
);
export type DeleteSessionResponse = z.infer<
  ReturnType<typeof DeleteSessionResponseSchema>
>;

export const HealthResponseSchema = lazy(() =>
  z
    .object({ status: z.literal("ok"), version: z.string().optional() })
    .meta({ id: "HealthResponse", description: "The worker is up." })
);
export type HealthResponse = z.infer<ReturnType<typeof HealthResponseSchema>>;
