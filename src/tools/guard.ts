/** @module Write guards for a call's context, so a timed-out call cannot change the session. */

import { RoostError } from "../errors";

/**
 * Wraps `target` so that its `writes` methods throw once `revoked()` is true.
 * Methods are bound to the target, so classes with `#private` fields work.
 */
export const guardWrites = <T extends object>(
  target: T,
  writes: readonly (keyof T & string)[],
  revoked: () => boolean,
  label: string
): T =>
  new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== "function") return value;
      const isWrite = (writes as readonly PropertyKey[]).includes(prop);
      return (...args: unknown[]) => {
        if (isWrite && revoked()) {
          throw new RoostError(
            "conflict",
            `${label} timed out; its writes after the timeout are refused.`
          );
        }
        return (value as (...a: unknown[]) => unknown).apply(obj, args);
      };
    }
  });
