/**
 * @module The Worker Loader glue: code tools' isolates started with the
 * worker's `[[worker_loaders]]` binding (Cloudflare's Dynamic Workers), or
 * in the development server's sandbox host, and never more at once than
 * the platform allows one Durable Object.
 */

import {
  type IsolateRunOptions,
  type IsolateStarter,
  MAX_ISOLATES_IN_FLIGHT
} from "../tools/types";
import { hostIsolates } from "./sandbox-host";

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

/** What every run's isolate is, apart from its modules. */
const WORKER = {
  compatibilityDate: ISOLATE_COMPATIBILITY_DATE,
  mainModule: "main.js",
  // Nothing of the session's: no bindings, no secrets, no storage.
  env: {},
  // fetch(), connect() and WebSocket all throw inside; an allow-list
  // goes through a capability the session checks instead.
  globalOutbound: null
};

/** Runs through `starter`, at most `max` at once, the rest first come first served. */
export const gateIsolates = (
  starter: IsolateStarter,
  max: number
): IsolateStarter => {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    running -= 1;
    queue.shift()?.();
  };
  const slot = (signal?: AbortSignal) =>
    new Promise<void>((granted, refused) => {
      if (running < max) {
        running += 1;
        granted();
        return;
      }
      const take = () => {
        signal?.removeEventListener("abort", leave);
        running += 1;
        granted();
      };
      const leave = () => {
        queue.splice(queue.indexOf(take), 1);
        refused(new Error("the run was abandoned while queued"));
      };
      signal?.addEventListener("abort", leave, { once: true });
      queue.push(take);
    });
  return {
    run: async (modules, input, capabilities, options: IsolateRunOptions) => {
      await slot(options.signal);
      options.started?.();
      // Freed when the run settles or its caller gives up, whichever is
      // first: an abandoned isolate that never settles must not hold it.
      let freed = false;
      const free = () => {
        if (freed) return;
        freed = true;
        options.signal?.removeEventListener("abort", free);
        release();
      };
      options.signal?.addEventListener("abort", free);
      try {
        return await starter.run(modules, input, capabilities, options);
      } finally {
        free();
      }
    }
  };
};

/**
 * The isolate starter of a session over the loader `env[binding]`, or,
 * when the development server set `env.ROOST_SANDBOX_URL`, its sandbox
 * host in place of the loader; undefined when the worker has no loader (or
 * `binding` is false). Each run `load`s a new isolate, never `get` with an id: an
 * isolate cached by id could keep what one call's code left in its
 * globals for the next call.
 */
export const loaderIsolates = (
  env: unknown,
  binding: string | false
): IsolateStarter | undefined => {
  if (binding === false || typeof env !== "object" || env === null) {
    return undefined;
  }
  const bindings = env as Record<string, unknown>;
  const loader = bindings[binding];
  // Without a loader there are no code tools, locally as deployed.
  if (!isLoader(loader)) return undefined;
  const host = bindings.ROOST_SANDBOX_URL;
  if (typeof host === "string" && host !== "") {
    return gateIsolates(hostIsolates(host, WORKER), MAX_ISOLATES_IN_FLIGHT);
  }
  return gateIsolates(
    {
      run: (modules, input, capabilities, options) => {
        const worker = loader.load({
          ...WORKER,
          modules,
          ...(options.cpuMs === undefined
            ? {}
            : { limits: { cpuMs: options.cpuMs } })
        });
        const entry = worker.getEntrypoint() as unknown as RunEntrypoint;
        return entry.run(input, capabilities);
      }
    },
    MAX_ISOLATES_IN_FLIGHT
  );
};
