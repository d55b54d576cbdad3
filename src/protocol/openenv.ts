/**
 * @module OpenEnv's session channel (`EnvClient` over `/ws`) and its HTTP
 * side routes, as its clients send and parse them: frames matched by order,
 * no request ids.
 */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonObjectSchema, JsonValueSchema } from "./json-value";
import { NameSchema } from "./limits";

/** OpenEnv's error codes; Roost adds none of its own. */
export const OPENENV_ERROR_CODES = [
  "INVALID_JSON",
  "UNKNOWN_TYPE",
  "VALIDATION_ERROR",
  "EXECUTION_ERROR",
  "CAPACITY_REACHED",
  "FACTORY_ERROR",
  "SESSION_ERROR"
] as const;
export type OpenEnvErrorCode = (typeof OPENENV_ERROR_CODES)[number];

/** `reset`'s data: OpenEnv's seed and episode_id, and Roost's task or task_index. */
export const OpenEnvResetDataSchema = lazy(() =>
  z.looseObject({
    seed: z.number().int().nullable().optional(),
    episode_id: z.string().max(256).nullable().optional(),
    task: JsonValueSchema().optional(),
    task_index: z.number().int().nonnegative().optional(),
    // OpenEnv's task API: reset(split=..., index=...), given together.
    split: z.string().min(1).max(256).nullable().optional(),
    index: z.number().int().nonnegative().nullable().optional(),
    // Roost's: the agent this client plays in a multi-agent environment.
    agent: NameSchema().optional()
  })
);
export type OpenEnvResetData = z.infer<
  ReturnType<typeof OpenEnvResetDataSchema>
>;

export const OpenEnvFrameSchema = lazy(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("reset"),
      data: OpenEnvResetDataSchema().default({})
    }),
    z.object({ type: z.literal("step"), data: JsonObjectSchema() }),
    z.object({ type: z.literal("state") }),
    z.object({ type: z.literal("close") }),
    z.object({ type: z.literal("mcp"), data: JsonObjectSchema() })
  ])
);
export type OpenEnvFrame = z.infer<ReturnType<typeof OpenEnvFrameSchema>>;
export const OPENENV_FRAME_TYPES = ["reset", "step", "state", "close", "mcp"];

/** OpenEnv's MCP actions, and an OpenAI-style assistant message (Roost's own step). */
export const OpenEnvListToolsSchema = lazy(() =>
  z.object({
    type: z.literal("list_tools")
  })
);
export const OpenEnvCallToolSchema = lazy(() =>
  z.object({
    type: z.literal("call_tool"),
    tool_name: z.string().min(1).max(256),
    arguments: JsonObjectSchema().default({})
  })
);

export const OpenEnvErrorFrameSchema = lazy(() =>
  z.object({
    type: z.literal("error"),
    data: z.object({
      message: z.string(),
      code: z.enum(OPENENV_ERROR_CODES)
    })
  })
);
export type OpenEnvErrorFrame = z.infer<
  ReturnType<typeof OpenEnvErrorFrameSchema>
>;

/** An OpenAI-style assistant message as an OpenEnv action: Roost's own step. */
export const OpenEnvMessageActionSchema = lazy(() =>
  z.looseObject({
    role: z.literal("assistant").optional(),
    content: z.unknown().optional(),
    tool_calls: z.array(z.unknown())
  })
);

/** A tool as OpenEnv's `Tool` model reads it (extra keys forbidden, description never null). */
export const OpenEnvToolSchema = lazy(() =>
  z.object({
    name: z.string(),
    description: z.string(),
    input_schema: JsonObjectSchema()
  })
);

/** OpenEnv's ToolErrorType values; its client rejects any other. */
export const OPENENV_TOOL_ERROR_TYPES = [
  "execution_error",
  "invalid_args",
  "transport_error",
  "tool_not_found",
  "timeout"
] as const;
export type OpenEnvToolErrorType = (typeof OPENENV_TOOL_ERROR_TYPES)[number];

export const OpenEnvObservationFrameSchema = lazy(() =>
  z.object({
    type: z.literal("observation"),
    data: z.object({
      observation: JsonObjectSchema(),
      reward: z.number().nullable(),
      done: z.boolean(),
      /** The observation's metadata again, where OpenEnv's proposed serializer puts it. */
      metadata: JsonObjectSchema().optional()
    })
  })
);
export type OpenEnvObservationFrame = z.infer<
  ReturnType<typeof OpenEnvObservationFrameSchema>
>;

/** OpenEnv's State (extra keys allowed) with what Roost adds to find the session again. */
export const OpenEnvStateSchema = lazy(() =>
  z.looseObject({
    episode_id: z.string().nullable(),
    step_count: z.number().int().nonnegative(),
    session_id: z.string(),
    session_token: z.string(),
    /** The base URL that re-attaches to this session (`…/ws` appended by the client). */
    reattach_base_url: z.string(),
    environment: z.string(),
    episode: z.number().int().nonnegative(),
    done: z.boolean(),
    truncated: z.boolean(),
    /** Whether the session outlives its socket. */
    kept: z.boolean(),
    /** The session's typed state, as GET /v1/sessions/:id/state answers it. */
    values: JsonObjectSchema(),
    /**
     * Set when `values` is the first page of a state larger than the read
     * budget: GET /v1/sessions/:id/state?cursor=<this> reads on.
     */
    values_next_cursor: z.string().optional()
  })
);
export type OpenEnvState = z.infer<ReturnType<typeof OpenEnvStateSchema>>;

export const OpenEnvHealthSchema = lazy(() =>
  z.object({ status: z.literal("healthy") }).meta({ id: "OpenEnvHealth" })
);

export const OpenEnvMetadataSchema = lazy(() =>
  z
    .object({
      name: z.string(),
      description: z.string(),
      readme_content: z.string().nullable(),
      version: z.string(),
      author: z.string().nullable(),
      documentation_url: z.string().nullable()
    })
    .meta({ id: "OpenEnvMetadata" })
);

export const OpenEnvSchemaResponseSchema = lazy(() =>
  z
    .object({
      action: JsonObjectSchema(),
      observation: JsonObjectSchema(),
      state: JsonObjectSchema()
    })
    .meta({ id: "OpenEnvSchemas" })
);

export const OpenEnvConnectRequestSchema = lazy(() =>
  z
    .strictObject({
      /** Sessions outlive their socket, so a dropped client can re-attach. */
      keep: z.boolean().default(false),
      /** How long the URL admits new sockets: a minute to 30 days, a day by default. */
      ttl_seconds: z
        .number()
        .int()
        .min(60)
        .max(30 * 24 * 3600)
        .default(24 * 3600)
    })
    .meta({ id: "OpenEnvConnectRequest" })
);

export const OpenEnvConnectResponseSchema = lazy(() =>
  z
    .object({
      /** Give it to OpenEnv's client as base_url; it is a credential. */
      base_url: z.string(),
      expires_at: z.string()
    })
    .meta({ id: "OpenEnvConnectResponse" })
);
