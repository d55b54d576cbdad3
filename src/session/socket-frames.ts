/**
 * @module A client's request frame as the operation it names: the same
 * operation, key binding and scope check as over HTTP, run with the grant
 * the socket was opened with.
 */

import { RoostError } from "../errors";
import type { ClientFrame } from "../protocol";
import type { Grant } from "../protocol/scopes";
import {
  dispatch,
  type OperationInput,
  type OperationName
} from "./operations";
import type { SessionRuntime } from "./runtime";

/** Forks this session for a socket's `fork` request (bound by the session class). */
export type SocketFork = (
  count: number,
  origin: string,
  grant: Grant,
  key: string | undefined,
  step?: number
) => Promise<unknown>;

export const runFrame = async (
  rt: SessionRuntime,
  frame: Exclude<ClientFrame, { type: "ping" | "resume" | "ack" }>,
  grant: Grant,
  origin: string | undefined,
  fork: SocketFork | undefined
): Promise<unknown> => {
  const key = "idempotency_key" in frame ? frame.idempotency_key : undefined;
  switch (frame.type) {
    case "step":
      return dispatch(
        rt,
        "step",
        frame.agent === undefined
          ? { action: frame.action }
          : { action: frame.action, agent: frame.agent },
        grant,
        key
      );
    case "reset":
      return dispatch(
        rt,
        "reset",
        {
          ...(frame.task === undefined ? {} : { task: frame.task }),
          ...(frame.task_index === undefined
            ? {}
            : { task_index: frame.task_index }),
          ...(frame.split === undefined ? {} : { split: frame.split }),
          ...(frame.state === undefined ? {} : { state: frame.state })
        },
        grant,
        key
      );
    case "call":
      return dispatch(
        rt,
        "call",
        { tool: frame.tool, arguments: frame.arguments },
        grant,
        key
      );
    case "cancel":
      return dispatch(rt, "cancelRun", { run_id: frame.run_id }, grant);
    case "op": {
      const name = frame.op as OperationName;
      const table = rt.shared.operations;
      if (!Object.hasOwn(table, name) || table[name]?.internal) {
        throw new RoostError(
          "invalid_request",
          `No operation "${frame.op}" is open to clients.`,
          { field: "op" }
        );
      }
      // dispatch parses the input with the operation's own schema.
      return dispatch(
        rt,
        name,
        frame.input as OperationInput<typeof name>,
        grant,
        key
      );
    }
    case "fork":
      if (fork === undefined || origin === undefined) {
        throw new RoostError(
          "invalid_request",
          "This session cannot be forked over its socket here; use POST /v1/sessions/:id/fork."
        );
      }
      rt.shared.requireRow();
      return fork(frame.count, origin, grant, key, frame.step);
  }
};
