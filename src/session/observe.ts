/** @module Taps on a mutation's backends: every write becomes an event, as it happens. */

import type { Message } from "../messages/schema";
import type { StateBackend, TranscriptBackend } from "../state/types";
import type { StoreBackend } from "../store/types";

export type Emit = (type: string, data: Record<string, unknown>) => void;

type Tap = (args: unknown[], result: unknown) => void;

/** Calls `taps[method](args, result)` after each successful call of a tapped method. */
const tap = <T extends object>(target: T, taps: Record<string, Tap>): T =>
  new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== "function") return value;
      const after = typeof prop === "string" ? taps[prop] : undefined;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
        after?.(args, result);
        return result;
      };
    }
  });

export const observeStore = <T extends StoreBackend>(
  backend: T,
  emit: Emit
): T =>
  tap(backend, {
    append: ([tool, name], index) =>
      emit("store.changed", { op: "add", tool, name, index }),
    set: ([tool, name, index]) =>
      emit("store.changed", { op: "replace", tool, name, index }),
    removeAt: ([tool, name, index]) =>
      emit("store.changed", { op: "remove", tool, name, index }),
    clear: ([tool, name]) => emit("store.changed", { op: "remove", tool, name })
  });

export const observeState = <T extends StateBackend>(
  backend: T,
  emit: Emit
): T =>
  tap(backend, {
    set: ([key, value]) => emit("state.changed", { key, value })
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
        emit("message", { message, index: first + i });
      });
    }
  });
