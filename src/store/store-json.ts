/** @module Building `StoreJson` objects safely from user-chosen tool and result names. */

import type { Entry, StoreJson } from "./types";

/**
 * Defines an own data property. Plain assignment would treat a tool named
 * `__proto__` as the object's prototype and silently lose it.
 */
export const setOwn = <T>(
  target: Record<string, T>,
  key: string,
  value: T
): void => {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true
  });
};

/** Puts `entries` under `[tool][name]`, appending if that list is already there. */
export const putEntries = (
  store: StoreJson,
  tool: string,
  name: string,
  entries: Entry[]
): void => {
  let names = Object.hasOwn(store, tool) ? store[tool] : undefined;
  if (names === undefined) {
    names = {};
    setOwn(store, tool, names);
  }
  const list = Object.hasOwn(names, name) ? names[name] : undefined;
  if (list === undefined) setOwn(names, name, entries);
  else list.push(...entries);
};
