/** @module The contract every environment store must pass, whatever its backend. */

import { describe } from "vitest";
import { addCases } from "./store-add.case";
import { displayCases } from "./store-display.case";
import { editCases } from "./store-edit.case";
import { readCases } from "./store-read.case";
import { viewCases } from "./store-view.case";
import type { EnvironmentStore } from "./types";

/**
 * Registers the environment store contract. `create` must return a fresh,
 * empty store on every call.
 *
 * @example
 * runStoreContract("memory", () => createEnvironmentStore(new MemoryStoreBackend()));
 */
export const runStoreContract = (
  label: string,
  create: () => EnvironmentStore
): void => {
  describe(`EnvironmentStore (${label})`, () => {
    addCases(create);
    editCases(create);
    readCases(create);
    viewCases(create);
    displayCases(create);
  });
};
