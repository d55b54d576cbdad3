/**
 * @module `lazy()`: a module-level value built on its first use. A cold
 * isolate runs every module's top level before its first request, and
 * building zod schemas there was most of a worker's startup; behind
 * `lazy`, a schema is built when something first parses with it,
 * composes it or documents it, and then kept.
 */

/** A getter that calls `build` once, on its first call, and then answers the same value. */
export const lazy = <T>(build: () => T): (() => T) => {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
};
