/**
 * @module The session's end of a sandbox host: code runs started in a
 * separate workerd process (the development server's, cli/sandbox-host.ts)
 * over one WebSocket per run, so code that exhausts memory ends that
 * process, never the sessions' own.
 *
 * Local workerd has no memory limit per isolate: one isolate past V8's
 * heap limit aborts the whole process. Deployed, the platform ends a
 * Dynamic Worker past its limit and the caller gets an exception; locally
 * the host's heap cap and restart stand in for that.
 *
 * The protocol, one JSON message per frame:
 * - host → session, first: `{ type: "hello", memoryMb }`
 * - session → host: `{ type: "run", worker, input, shape }` (shape: the
 *   capability groups and their method names)
 * - host → session: `{ type: "call", id, group, method, args }`, answered
 *   by `{ type: "answer", id, ok, value | name, message }`
 * - host → session, last: `{ type: "reply", value }` or `{ type: "failed", message }`
 */

import type { IsolateRunOptions, IsolateStarter } from "../tools/types";

type Capabilities = Record<
  string,
  Record<string, (...args: unknown[]) => unknown>
>;

/** What the host sends. */
type HostMessage =
  | { type: "hello"; memoryMb: number }
  | { type: "call"; id: number; group: string; method: string; args: unknown[] }
  | { type: "reply"; value: unknown }
  | { type: "failed"; message: string };

/** How long a run waits for a host that is restarting before it gives up. */
const CONNECT_WITHIN_MS = 5_000;

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The host's socket; retried while the host restarts (after a crash). */
const connect = async (url: string, signal?: AbortSignal) => {
  const until = Date.now() + CONNECT_WITHIN_MS;
  for (;;) {
    try {
      const response = await fetch(url, {
        headers: { Upgrade: "websocket" },
        ...(signal ? { signal } : {})
      });
      const socket = response.webSocket;
      if (socket) {
        socket.accept();
        return socket;
      }
      throw new Error(String(response.status));
    } catch (error) {
      if (signal?.aborted || Date.now() > until) {
        throw new Error(
          `no sandbox host at ${url}: ${(error as Error).message}`
        );
      }
      await pause(100);
    }
  }
};

/** Each group's method names: what the host rebuilds as functions. */
const shapeOf = (capabilities: Capabilities) =>
  Object.fromEntries(
    Object.entries(capabilities).map(([group, methods]) => [
      group,
      Object.keys(methods)
    ])
  );

/** Runs the capability the host asked for, and answers it. */
const answer = async (
  capabilities: Capabilities,
  call: Extract<HostMessage, { type: "call" }>,
  send: (message: unknown) => void
) => {
  const group = Object.hasOwn(capabilities, call.group)
    ? capabilities[call.group]
    : undefined;
  const method =
    group && Object.hasOwn(group, call.method) ? group[call.method] : undefined;
  try {
    if (method === undefined)
      throw new TypeError(`no capability ${call.group}.${call.method}`);
    const value = await method(...(Array.isArray(call.args) ? call.args : []));
    send({ type: "answer", id: call.id, ok: true, value });
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    send({
      type: "answer",
      id: call.id,
      ok: false,
      name: e.name,
      message: e.message
    });
  }
};

/** One run on the host: resolves to the sandbox's reply. */
const runOnHost = async (
  url: string,
  worker: Record<string, unknown>,
  input: unknown,
  capabilities: Capabilities,
  options: IsolateRunOptions
): Promise<unknown> => {
  const socket = await connect(url, options.signal);
  const send = (message: unknown) => {
    try {
      socket.send(JSON.stringify(message));
    } catch {
      // Closed: the close event settles the run.
    }
  };
  let memoryMb: number | undefined;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener("abort", leave);
      try {
        socket.close(1000, "done");
      } catch {
        // Already closed.
      }
      outcome();
    };
    // The caller gave up (a timeout): the host drops the isolate's link.
    const leave = () =>
      settle(() => reject(new Error("the run was abandoned")));
    options.signal?.addEventListener("abort", leave);
    socket.addEventListener("message", (event) => {
      let message: HostMessage;
      try {
        message = JSON.parse(String(event.data)) as HostMessage;
      } catch {
        return;
      }
      if (message.type === "hello") memoryMb = message.memoryMb;
      else if (message.type === "call")
        void answer(capabilities, message, send);
      else if (message.type === "reply") settle(() => resolve(message.value));
      else if (message.type === "failed")
        settle(() => reject(new Error(message.message)));
    });
    // The host process ended mid-run: locally, what the platform's memory
    // limit does deployed.
    const lost = () =>
      settle(() =>
        reject(
          new RangeError(
            `the sandbox process ended while the code ran: the code most likely used more than ${memoryMb ?? "its"} MB of memory (the limit of one run).`
          )
        )
      );
    socket.addEventListener("close", lost);
    socket.addEventListener("error", lost);
    send({ type: "run", worker, input, shape: shapeOf(capabilities) });
  });
};

/**
 * An isolate starter whose isolates run in the sandbox host at `url`
 * (`http://127.0.0.1:port`). `worker` is what a Worker Loader's `load`
 * takes, less the modules: the same for every run.
 */
export const hostIsolates = (
  url: string,
  worker: Record<string, unknown>
): IsolateStarter => ({
  run: (modules, input, capabilities, options) =>
    runOnHost(
      url,
      {
        ...worker,
        modules,
        ...(options.cpuMs ? { limits: { cpuMs: options.cpuMs } } : {})
      },
      input,
      capabilities as Capabilities,
      options
    )
});
