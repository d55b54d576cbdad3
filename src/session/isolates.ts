/**
 * @module The Worker Loader glue: code tools' isolates started with the
 * worker's `[[worker_loaders]]` binding (Cloudflare's Dynamic Workers).
 */

import type { IsolateStarter } from "../tools/types";

/**
 * The compatibility date of every isolate a code tool starts: fixed, so a
 * snippet behaves the same whatever the deployment's own date, and no newer
 * than what the pinned workerd accepts.
 */
export const ISOLATE_COMPATIBILITY_DATE = "2026-04-26";

/** What the isolate's main module exports, as seen through the loader. */
interface RunEntrypoint {
  run(input: unknown, capabilities: object): Promise<unknown>;
}

const isLoader = (value: unknown): value is WorkerLoader =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { load?: unknown }).load === "function";

/**
 * The isolate starter over `env[binding]`, or undefined when the worker
 * has no such binding (or `binding` is false). Each run `load`s a new
 * isolate, never `get` with an id: an isolate cached by id could keep what
 * one call's code left in its globals for the next call.
 */
export const loaderIsolates = (
  env: unknown,
  binding: string | false
): IsolateStarter | undefined => {
  if (binding === false || typeof env !== "object" || env === null) {
    return undefined;
  }
  const loader = (env as Record<string, unknown>)[binding];
  if (!isLoader(loader)) return undefined;
  return {
    run: (modules, input, capabilities, limits) => {
      const worker = loader.load({
        compatibilityDate: ISOLATE_COMPATIBILITY_DATE,
        mainModule: "main.js",
        modules,
        // Nothing of the session's: no bindings, no secrets, no storage.
        env: {},
        // fetch(), connect() and WebSocket all throw inside; an allow-list
        // goes through a capability the session checks instead.
        globalOutbound: null,
        ...(limits.cpuMs === undefined
          ? {}
          : { limits: { cpuMs: limits.cpuMs } })
      });
      const entry = worker.getEntrypoint() as unknown as RunEntrypoint;
      return entry.run(input, capabilities);
    }
  };
};
