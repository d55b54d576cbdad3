/** @module The typed state a page at a time: whole values in the state's key order while the budget admits them. */

import { type JsonValue, utf8Length } from "../../json";
import type { ReadBudget } from "../../protocol";

/**
 * Keys are few (the state's schema names them) but a value may be a
 * megabyte. The state's `messages` is the transcript, read on its own
 * route; the hidden store's page skips nothing.
 */
export const statePage = (
  state: { get(key: string): unknown },
  keys: readonly string[],
  from: number,
  budget: ReadBudget,
  skip: string | undefined = "messages"
): { values: Record<string, JsonValue>; next?: number } => {
  const values: Record<string, JsonValue> = {};
  for (let i = from; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === skip) continue;
    const value = state.get(key) as JsonValue | undefined;
    if (value === undefined) continue;
    if (!budget.take(utf8Length(JSON.stringify(value)) + utf8Length(key) + 4))
      return { values, next: i };
    // A state key named __proto__ is data like any other.
    Object.defineProperty(values, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true
    });
  }
  return { values };
};
