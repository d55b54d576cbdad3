/** @module Write guards for a call's context, so a timed-out call cannot change the session. */

import { RoostError } from "../errors";
import type { StateAccess } from "../state/types";
import type { EnvironmentStore, HiddenStore } from "../store/types";
import type { EpisodeControl } from "./types";

type Method = (...args: never[]) => unknown;

/**
 * Every method of `T`, marked as a read or a write. The table must name each
 * method, so one added to `T` fails to compile until someone decides whether
 * a timed-out call may still use it.
 */
export type Access<T> = {
  [K in keyof T as T[K] extends Method ? K : never]-?: "read" | "write";
};

export const STORE_ACCESS: Access<EnvironmentStore> = {
  add: "write",
  addObjects: "write",
  replace: "write",
  remove: "write",
  find: "read",
  locate: "read",
  slice: "read",
  has: "read",
  isEmpty: "read",
  keys: "read",
  keyPage: "read",
  page: "read",
  read: "read",
  recent: "read",
  llmView: "read",
  toJSON: "read"
};

export const HIDDEN_ACCESS: Access<HiddenStore> = {
  set: "write",
  delete: "write",
  get: "read",
  has: "read",
  keys: "read"
};

export const STATE_ACCESS: Access<StateAccess> = {
  set: "write",
  get: "read",
  has: "read",
  toJSON: "read"
};

export const EPISODE_ACCESS: Access<EpisodeControl> = {
  end: "write",
  addReward: "write",
  truncate: "write"
};

/**
 * A view of `target` with exactly the methods `access` names, bound to it
 * (so classes with `#private` fields work); its writes throw once
 * `revoked()` is true.
 */
export const guardWrites = <T extends object>(
  target: T,
  access: Access<T>,
  revoked: () => boolean,
  label: string
): T => {
  const view: Record<string, unknown> = {};
  const table = access as Record<string, "read" | "write">;
  // for…in, not Object.entries: every tool call builds four views, and
  // listing each table's entries cost more than binding its methods.
  for (const name in table) {
    if (!Object.hasOwn(table, name)) continue;
    const method = Reflect.get(target, name) as (...a: unknown[]) => unknown;
    view[name] =
      table[name] === "read"
        ? method.bind(target)
        : (...args: unknown[]) => {
            if (revoked()) {
              throw new RoostError(
                "conflict",
                `${label} timed out; its writes after the timeout are refused.`
              );
            }
            return method.apply(target, args);
          };
  }
  return view as T;
};
