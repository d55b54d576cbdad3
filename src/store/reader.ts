/** @module A read-only view of an environment store, for code that must look but not write. */

import {
  type EnvironmentReader,
  type EnvironmentStore,
  STORE_READ_METHODS
} from "./types";

/**
 * The store's read methods bound to it, and nothing else: a rule handed this
 * has no `add`, `replace` or `remove` to call, even by a cast. Reads go to
 * the live store, so the view always shows what is stored now.
 */
export const readOnlyStore = (store: EnvironmentStore): EnvironmentReader =>
  Object.freeze(
    Object.fromEntries(
      STORE_READ_METHODS.map((method) => [
        method,
        (...args: unknown[]) =>
          (store[method] as (...a: unknown[]) => unknown).apply(store, args)
      ])
    )
  ) as unknown as EnvironmentReader;
