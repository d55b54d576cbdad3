/** @module Taps on a mutation's backends: every write becomes an event, as it happens. */

import type { Message } from "../messages/schema";
import type { Emit } from "../protocol";
import type { StateBackend, TranscriptBackend } from "../state/types";
import type { StoreBackend } from "../store/types";

type Tap = (args: unknown[], result: unknown) => void;

/**
 * Calls `before[method](args)` ahead of each call of a listed method (it may
 * throw to refuse the call) and `after[method](args, result)` once it returned.
 */
export const tap = <T extends object>(
  target: T,
  after: Record<string, Tap>,
  before: Record<string, (args: unknown[]) => void> = {}
): T =>
  new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== "function") return value;
      const pre = typeof prop === "string" ? before[prop] : undefined;
      const post = typeof prop === "string" ? after[prop] : undefined;
      if (pre === undefined && post === undefined) return value.bind(obj);
      return (...args: unknown[]) => {
        pre?.(args);
        const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
        post?.(args, result);
        return result;
      };
    }
  });

const key = (
  op: "add" | "replace" | "remove",
  tool: unknown,
  name: unknown,
  index?: unknown
) => ({
  op,
  tool: tool as string,
  name: name as string,
  ...(index === undefined ? {} : { index: index as number })
});

export const observeStore = <T extends StoreBackend>(
  backend: T,
  emit: Emit
): T =>
  tap(backend, {
    append: ([tool, name], index) =>
      emit("store.changed", key("add", tool, name, index)),
    set: ([tool, name, index]) =>
      emit("store.changed", key("replace", tool, name, index)),
    removeAt: ([tool, name, index]) =>
      emit("store.changed", key("remove", tool, name, index)),
    clear: ([tool, name]) => emit("store.changed", key("remove", tool, name))
  });

export const observeState = <T extends StateBackend>(
  backend: T,
  emit: Emit
): T =>
  tap(backend, {
    set: ([key, value]) =>
      emit("state.changed", { key: key as string, value: value as never })
  });

export const observeTranscript = <T extends TranscriptBackend>(
  backend: T,
  emit: Emit
): T =>
  tap(backend, {
    append: ([messages]) => {
      const list = messages as Message[];
      // Indexes continue from what the transcript held before this append.
      const first = backend.count() - list.length;
      list.forEach((message, i) => {
        emit("message", { message: message as never, index: first + i });
      });
    }
  });
