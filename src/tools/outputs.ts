/** @module `outputsToState`: merging a successful call's object result into typed state. */

import { RoostError } from "../errors";
import type { JsonValue } from "../json";
import type { Message } from "../messages/schema";
import type { SetOptions, StateAccess } from "../state/types";
import { toException } from "./content";
import type { Tool } from "./define-tool";
import type { ToolException } from "./types";

/** State as the executor needs it: compute a merge without storing, then store. */
export interface MergeableState extends StateAccess {
  prepare(key: string, value: unknown, options?: SetOptions): JsonValue;
  put(key: string, value: JsonValue): void;
  /** Appends messages parsed and size-checked already (state.ts). */
  appendChecked(messages: Message[]): void;
  messageCount(): number;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Applies every mapping of one call, or none of them. Returns the error
 * text for the tool message when a merge is rejected, and the exception
 * when an author's handler threw (a value the state's schema refused is
 * no exception: its RoostError's message says it all). A non-object result merges nothing, and a mapping
 * whose `source` field is missing is skipped (Haystack's behaviour).
 */
export const mergeOutputs = (
  state: MergeableState,
  name: string,
  tool: Tool,
  value: unknown
): { content: string; exception?: ToolException } | undefined => {
  if (!isPlainObject(value)) return undefined;
  const prepared: [string, JsonValue][] = [];
  try {
    for (const [key, mapping] of Object.entries(tool.outputsToState ?? {})) {
      if (mapping === undefined) continue;
      if (
        mapping.source !== undefined &&
        !Object.hasOwn(value, mapping.source)
      ) {
        continue;
      }
      const incoming =
        mapping.source === undefined ? value : value[mapping.source];
      const options = mapping.handler ? { handler: mapping.handler } : {};
      prepared.push([key, state.prepare(key, incoming, options)]);
    }
  } catch (error) {
    const refused = error instanceof RoostError;
    const why = refused ? error.message : String(error);
    // A handler's own throw arrives as the cause of the state's refusal.
    const thrown = refused ? error.cause : error;
    return {
      content: `Tool ${name}: its result could not be merged into state: ${why}`,
      ...(thrown === undefined ? {} : { exception: toException(thrown) })
    };
  }
  for (const [key, next] of prepared) state.put(key, next);
  return undefined;
};
