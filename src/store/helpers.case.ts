/** @module Small helpers shared by the store contract suites. */

import { RoostError } from "../errors";
import type { JsonObject } from "../json";
import type { Entry, StoreJson } from "./types";

/** The code of the RoostError `fn` throws; fails the test if it throws anything else or nothing. */
export const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof RoostError) return error.code;
    throw error;
  }
  throw new Error("expected a RoostError, but nothing was thrown");
};

const stripObject = (object: JsonObject): JsonObject => {
  const { _REF_ID: _id, ...rest } = object;
  return rest;
};

export const stripEntry = (entry: Entry): Entry => ({
  objects: entry.objects.map(stripObject),
  metadata: entry.metadata
});

/** The store with every top-level `_REF_ID` removed, to compare with documents that show none. */
export const stripRefIds = (store: StoreJson): StoreJson =>
  Object.fromEntries(
    Object.entries(store).map(([tool, names]) => [
      tool,
      Object.fromEntries(
        Object.entries(names).map(([name, list]) => [
          name,
          list.map(stripEntry)
        ])
      )
    ])
  );

export const refIds = (entry: Entry): unknown[] =>
  entry.objects.map((o) => o._REF_ID);
