/** @module OpenEnv frames coming in: read, checked and turned into requests, or into the error frame that answers them. */

import type * as z from "zod";
import type { Environment } from "../../environment/define-environment";
import { resolveTask } from "../../environment/task";
import type { JsonObject, JsonValue } from "../../json";
import {
  JSONRPC_ERRORS,
  type JsonRpcMessage,
  JsonRpcMessageSchema,
  type Limits,
  OPENENV_FRAME_TYPES,
  type OpenEnvFrame,
  OpenEnvFrameSchema,
  type OpenEnvResetData
} from "../../protocol";
import { checkJsonLimits } from "../../protocol/json-value";
import { errorFrame, validationErrors } from "./translate";

/** Every answer: `{type, data}`, one per request. */
export type Frame = { type: string; data?: unknown };

/** A request refused with the error frame that answers it. */
export class Refused extends Error {
  constructor(readonly frame: Frame) {
    super("refused");
  }
}

/** `data` as `schema` reads it, or a VALIDATION_ERROR frame thrown as Refused. */
export const validated = <S extends z.ZodType>(
  schema: S,
  data: unknown
): z.output<S> => {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  throw new Refused(
    errorFrame("VALIDATION_ERROR", "Invalid message", {
      errors: validationErrors(parsed.error)
    })
  );
};

/** OpenEnv's client sends text; json.loads would take bytes too, and a worker's socket hands binary frames over as Blobs. */
export const frameText = async (
  data: string | ArrayBuffer | Blob
): Promise<string> =>
  typeof data === "string"
    ? data
    : data instanceof Blob
      ? data.text()
      : new TextDecoder().decode(data);

/** A frame, or the error frame that answers it. Bad frames never close the socket. */
export const parseFrame = (
  text: string,
  limits: Limits
): OpenEnvFrame | Frame => {
  if (text.length > limits.wsFrameBytes) {
    return errorFrame(
      "VALIDATION_ERROR",
      `The frame is over ${limits.wsFrameBytes} bytes.`
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return errorFrame(
      "INVALID_JSON",
      `Invalid JSON: ${error instanceof Error ? error.message : "not JSON"}`
    );
  }
  const tooDeep = checkJsonLimits(raw, limits);
  if (tooDeep) return errorFrame("VALIDATION_ERROR", tooDeep.message);
  const type =
    typeof raw === "object" && raw !== null && !Array.isArray(raw)
      ? (raw as { type?: unknown }).type
      : undefined;
  if (typeof type !== "string" || !OPENENV_FRAME_TYPES.includes(type)) {
    return errorFrame(
      "UNKNOWN_TYPE",
      `Unknown message type: ${typeof type === "string" ? type : ""}`
    );
  }
  const parsed = OpenEnvFrameSchema().safeParse(raw);
  return parsed.success
    ? parsed.data
    : errorFrame("VALIDATION_ERROR", "Invalid message", {
        errors: validationErrors(parsed.error)
      });
};

/**
 * The name OpenEnv's task API gives the environment's own `dataset`: its
 * `split` is a required string, and Roost's default dataset has no name.
 * A split of the environment really called "default" keeps the name (the
 * own dataset is then not listed).
 */
export const DEFAULT_SPLIT = "default";

/** The Roost split an OpenEnv split name means: undefined for the own dataset. */
export const roostSplit = (
  environment: Environment,
  name: string
): string | undefined =>
  name === DEFAULT_SPLIT &&
  environment.dataset !== undefined &&
  !Object.hasOwn(environment.splits ?? {}, name)
    ? undefined
    : name;

/** What a `reset` asks of the session's reset operation, and the task it names (to create the session with). */
export interface ResetChoice {
  request: { task: JsonValue } | { task_index: number; split?: string };
  task: unknown;
}

const byIndex = (
  environment: Environment,
  index: number,
  split?: string
): ResetChoice => {
  const request = {
    task_index: index,
    ...(split === undefined ? {} : { split })
  };
  return { request, task: resolveTask(environment, request) };
};

/**
 * The task a `reset` names: OpenEnv's task API's `split` and `index`
 * (together), Roost's `task` or `task_index`, else a seed picks dataset
 * task `seed mod size` reproducibly (a generated dataset's task `seed`);
 * undefined keeps the session's own task. Roost environments are otherwise
 * deterministic given their task, so a seed means nothing without a
 * dataset. An index is handed to the reset as an index, so the episode
 * counts in that task's statistics.
 */
export const resetTask = (
  environment: Environment,
  data: OpenEnvResetData
): ResetChoice | undefined => {
  // Roost's own task_index takes a split too; without it, a split is OpenEnv's.
  if (
    data.index != null ||
    (data.split != null && data.task_index === undefined)
  ) {
    if (data.split == null || data.index == null)
      throw new Refused(
        errorFrame(
          "VALIDATION_ERROR",
          "split and index must be provided together (OpenEnv's task API: reset(split=..., index=...))."
        )
      );
    return byIndex(
      environment,
      data.index,
      roostSplit(environment, data.split)
    );
  }
  if (data.task_index !== undefined)
    return byIndex(environment, data.task_index, data.split ?? undefined);
  if (data.task !== undefined) {
    const task = resolveTask(environment, { task: data.task });
    return { request: { task: data.task }, task };
  }
  if (typeof data.seed !== "number" || environment.dataset === undefined)
    return undefined;
  const size = environment.dataset.size;
  // A generated dataset takes any non-negative seed as it is.
  if (size === undefined)
    return byIndex(environment, Math.abs(Math.trunc(data.seed)));
  if (size === 0) return undefined;
  return byIndex(environment, ((data.seed % size) + size) % size);
};

/** An `mcp` frame's JSON-RPC request, or the JSON-RPC error that answers anything else. */
export const mcpRequest = (
  data: JsonObject
):
  | { ok: true; message: JsonRpcMessage & { id: string | number } }
  | { ok: false; answer: JsonObject } => {
  const message = JsonRpcMessageSchema().safeParse(data);
  if (message.success && message.data.id !== undefined)
    return { ok: true, message: { ...message.data, id: message.data.id } };
  return {
    ok: false,
    answer: {
      jsonrpc: "2.0",
      id:
        typeof data.id === "string" || typeof data.id === "number"
          ? data.id
          : null,
      error: {
        code: JSONRPC_ERRORS.invalidRequest,
        message:
          "Invalid request: one JSON-RPC 2.0 request with an id is expected."
      }
    }
  };
};
