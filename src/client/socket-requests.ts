/** @module The socket's typed requests: the frame each sends, and the schema its reply's value is parsed with. */

import type { JsonObject, JsonValue } from "../json";
import {
  type ActionInput,
  ForkResponseSchema,
  ResetResponseSchema,
  StepResponseSchema,
  ToolInvocationResponseSchema
} from "../protocol";
import type { SocketRequest } from "./pending-requests";
import type { MutationOptions } from "./session-client";

/** Sends a request frame and resolves with its reply's value. */
type Send = (request: SocketRequest) => Promise<JsonValue>;

/** A dataset task by index, of the default dataset or of a named split. */
export interface ResetPick {
  taskIndex: number;
  split?: string;
}

export const stepRequest = async (
  send: Send,
  action: ActionInput,
  options: MutationOptions | string
) => {
  const idempotencyKey =
    typeof options === "string" ? options : options.idempotencyKey;
  const value = await send({
    type: "step",
    action,
    ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {})
  });
  return StepResponseSchema().parse(value);
};

export const resetRequest = async (
  send: Send,
  task: JsonValue | undefined,
  state: Record<string, JsonValue> | undefined,
  pick: ResetPick | undefined
) => {
  const value = await send({
    type: "reset",
    ...(task === undefined ? {} : { task }),
    ...(pick === undefined ? {} : { task_index: pick.taskIndex }),
    ...(pick?.split === undefined ? {} : { split: pick.split }),
    ...(state === undefined ? {} : { state })
  });
  return ResetResponseSchema().parse(value);
};

export const callRequest = async (send: Send, tool: string, args: JsonObject) =>
  ToolInvocationResponseSchema().parse(
    await send({ type: "call", tool, arguments: args })
  );

export const forkRequest = async (send: Send, count: number, step?: number) =>
  ForkResponseSchema().parse(
    await send(
      step === undefined
        ? { type: "fork", count }
        : { type: "fork", count, step }
    )
  );
