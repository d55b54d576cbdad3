/** @module The events a tool call produces, and the result event of an entry however it was written. */

import type { Emit, EventData } from "../protocol";
import type { LocatedEntry } from "../store/types";
import { capText } from "../tools/content";
import type { ExecutionHooks, ToolException } from "../tools/types";

/**
 * A stored entry as clients see it arrive: like a tool's Result, objects
 * included, whole, with the mapping beside them for the frontend to apply.
 */
export const resultEvent = (
  entry: LocatedEntry,
  extra: { call_id?: string; display?: boolean } = {}
): EventData<"result"> => ({
  ...(extra.call_id === undefined ? {} : { call_id: extra.call_id }),
  tool: entry.tool,
  name: entry.name,
  index: entry.index,
  objects: entry.objects,
  metadata: entry.metadata,
  display: extra.display ?? true,
  ...(entry.payloadType === undefined
    ? {}
    : { payload_type: entry.payloadType }),
  ...(entry.mapping === undefined ? {} : { mapping: entry.mapping })
});

/** How a session reports what a tool's own code threw. */
export interface ExceptionReport {
  /** Whether `tool.finished` carries the stack: in development only. */
  stacks: boolean;
  /** Writes the exception to the worker's log, whatever the mode. */
  log(call: { id: string; tool: string }, exception: ToolException): void;
}

// A tool may throw a megabyte of message; the event log's rows and a
// socket's frames should not carry it (the log line carries it whole).
const EXCEPTION_MESSAGE_BYTES = 4 * 1024;
const EXCEPTION_STACK_BYTES = 16 * 1024;

/** An exception as `tool.finished` carries it. */
const wireException = (
  exception: ToolException,
  stacks: boolean
): NonNullable<EventData<"tool.finished">["exception"]> => ({
  message: capText(exception.message, EXCEPTION_MESSAGE_BYTES),
  ...(stacks && exception.stack !== undefined
    ? { stack: capText(exception.stack, EXCEPTION_STACK_BYTES) }
    : {})
});

/**
 * Every tool call of a mutation streams its start, results, updates and
 * end; an exception of the tool's code is logged and rides on its end.
 */
export const toolHooks = (
  emit: Emit,
  report?: ExceptionReport
): ExecutionHooks => ({
  onStart: (c, args) =>
    emit("tool.started", {
      call_id: c.id,
      tool: c.tool,
      arguments: args as EventData<"tool.started">["arguments"]
    }),
  onResult: (c, r, stored) =>
    emit("result", resultEvent(stored, { call_id: c.id, display: r.display })),
  onUpdate: (c, u) => {
    const { kind, ...payload } = u;
    emit("update", {
      kind,
      payload: payload as EventData<"update">["payload"],
      ...(c.id ? { call_id: c.id } : {})
    });
  },
  onFinish: (c, message, exception) => {
    if (exception !== undefined) report?.log(c, exception);
    emit("tool.finished", {
      call_id: c.id,
      tool: c.tool,
      is_error: message.is_error === true,
      ...(exception === undefined
        ? {}
        : { exception: wireException(exception, report?.stacks === true) })
    });
  }
});

/**
 * The log line of a tool's exception: which session, episode, step or
 * other mutation, tool and call, then the stack (or the message when
 * something other than an Error was thrown). Always written: the
 * operator's logs (`wrangler tail`, Workers Logs) are the one place a
 * production stack goes.
 */
export const exceptionLogLine = (
  where: { sessionId: string; episode: number; during: string },
  call: { id: string; tool: string },
  exception: ToolException
): string =>
  `Roost: tool "${call.tool}" threw (session ${where.sessionId}, episode ${where.episode}, ${where.during}, call ${call.id}):\n${exception.stack ?? exception.message}`;
