/** @module The events a tool call produces, and the result event of an entry however it was written. */

import type { Emit, EventData } from "../protocol";
import type { LocatedEntry } from "../store/types";
import type { ExecutionHooks } from "../tools/types";

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

/** Every tool call of a mutation streams its start, results, updates and end. */
export const toolHooks = (emit: Emit): ExecutionHooks => ({
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
  onFinish: (c, message) =>
    emit("tool.finished", {
      call_id: c.id,
      tool: c.tool,
      is_error: message.is_error === true
    })
});
