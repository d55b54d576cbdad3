/**
 * @module One OpenEnv session as a trainer's `EnvClient` runs it: connect,
 * reset, steps each waiting for its answer, then the close frame and a
 * Close 1000. The frames are the Python client's own text (json.dumps, with
 * its spaces), as test/node/openenv.test.ts sends them.
 */

import WebSocket from "ws";

export const RESET = '{"type": "reset", "data": {}}';
export const STEP =
  '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}';
export const CLOSE = '{"type": "close"}';

/** Milliseconds each part took, client-side. */
export interface SessionTimes {
  connect: number;
  reset: number;
  steps: number[];
  /** From the close frame to the socket's close. */
  close: number;
}

export type Outcome =
  | { ok: true; times: SessionTimes }
  | { ok: false; reason: string; steps: number };

/**
 * Long enough that only a stuck server trips it: thousands of sessions
 * queue for two shared cores.
 */
const TIMEOUT_MS = 300_000;

export interface OpenEnvSocket {
  /** Sends a frame and answers the next answer: OpenEnv's client matches them by order alone. */
  request(text: string): Promise<string>;
  /** OpenEnv's disconnect(): the close frame, then a Close 1000; resolves once closed. */
  close(): Promise<void>;
}

export const openSocket = (url: string) =>
  new Promise<OpenEnvSocket>((resolve, reject) => {
    // As EnvClient connects: no subprotocol, no headers, deflate offered.
    const ws = new WebSocket(url, { handshakeTimeout: TIMEOUT_MS });
    const answers: string[] = [];
    let waiter: ((answer: string) => void) | undefined;
    let ended: Error | undefined;
    let onClose: (() => void) | undefined;
    const fail = (error: Error) => {
      ended ??= error;
      reject(error);
      onClose?.();
    };
    ws.on("message", (data: Buffer) => {
      const text = data.toString("utf8");
      if (waiter === undefined) answers.push(text);
      else waiter(text);
    });
    ws.once("error", fail);
    ws.once("close", (code) => fail(new Error(`closed with ${code}`)));
    ws.once("open", () =>
      resolve({
        request: (text) =>
          new Promise((answered, failed) => {
            if (ended !== undefined) return failed(ended);
            ws.send(text);
            const early = answers.shift();
            if (early !== undefined) return answered(early);
            const timer = setTimeout(
              () => failed(new Error("no answer in time")),
              TIMEOUT_MS
            );
            waiter = (answer) => {
              clearTimeout(timer);
              waiter = undefined;
              answered(answer);
            };
            onClose = () => {
              clearTimeout(timer);
              failed(ended);
            };
          }),
        close: () =>
          new Promise((closed) => {
            onClose = () => closed();
            ws.send(CLOSE);
            ws.close(1000);
          })
      })
    );
  });

/** An answer's failure, if it is not an observation. */
const refusal = (answer: string): string | undefined => {
  const frame = JSON.parse(answer) as {
    type?: string;
    data?: { code?: string; message?: string };
  };
  return frame.type === "observation"
    ? undefined
    : `${frame.type} ${frame.data?.code ?? ""}: ${frame.data?.message ?? ""}`.trim();
};

/** Runs one session; a failure says in which phase and why, instead of throwing. */
export const runSession = async (
  url: string,
  steps: number
): Promise<Outcome> => {
  const times: SessionTimes = { connect: 0, reset: 0, steps: [], close: 0 };
  let at = "connect";
  try {
    let started = performance.now();
    const socket = await openSocket(url);
    times.connect = performance.now() - started;
    const timedRequest = async (text: string): Promise<number> => {
      started = performance.now();
      const answer = await socket.request(text);
      const ms = performance.now() - started;
      const refused = refusal(answer);
      if (refused !== undefined) throw new Error(refused);
      return ms;
    };
    at = "reset";
    times.reset = await timedRequest(RESET);
    for (let i = 0; i < steps; i++) {
      at = "step";
      times.steps.push(await timedRequest(STEP));
    }
    at = "close";
    started = performance.now();
    await socket.close();
    times.close = performance.now() - started;
    return { ok: true, times };
  } catch (error) {
    return {
      ok: false,
      reason: `${at}: ${(error as Error).message}`,
      steps: times.steps.length
    };
  }
};

/** What a phased wave measured: each phase alone, every session through it before the next starts. */
export interface PhasedWave {
  /** Sessions that got through every phase. */
  ok: number;
  failures: string[];
  connect: number[];
  /** Step latencies of the step phase, every session's. */
  steps: number[];
  /** The step phase's wall time, from its first step sent to its last answer. */
  stepWallMs: number;
  /** workerd CPU over the step phase (undefined without /proc). */
  stepCpuMs: number | undefined;
}

/**
 * N sessions, phase by phase, as a trainer's episodes run once they are
 * going: every socket connected, then every session reset, then the steps
 * (each session's in turn, all sessions at once) timed alone, then every
 * socket closed. `cpu` reads workerd's CPU time around the step phase.
 */
export const runPhasedWave = async (
  url: string,
  sessions: number,
  steps: number,
  cpu: () => number | undefined
): Promise<PhasedWave> => {
  const failures: string[] = [];
  const connect: number[] = [];
  const opened = await Promise.all(
    Array.from({ length: sessions }, async () => {
      const started = performance.now();
      try {
        const socket = await openSocket(url);
        connect.push(performance.now() - started);
        return socket;
      } catch (error) {
        failures.push(`connect: ${(error as Error).message}`);
        return undefined;
      }
    })
  );
  const ask = async (socket: OpenEnvSocket, text: string, at: string) => {
    const answer = await socket.request(text);
    const refused = refusal(answer);
    if (refused !== undefined) throw new Error(`${at}: ${refused}`);
  };
  const live = (
    await Promise.all(
      opened.map(async (socket) => {
        if (socket === undefined) return undefined;
        try {
          await ask(socket, RESET, "reset");
          return socket;
        } catch (error) {
          failures.push((error as Error).message);
          return undefined;
        }
      })
    )
  ).filter((s): s is OpenEnvSocket => s !== undefined);
  const latencies: number[] = [];
  const cpuBefore = cpu();
  const started = performance.now();
  const finished = await Promise.all(
    live.map(async (socket) => {
      try {
        for (let i = 0; i < steps; i++) {
          const sent = performance.now();
          await ask(socket, STEP, "step");
          latencies.push(performance.now() - sent);
        }
        return true;
      } catch (error) {
        failures.push((error as Error).message);
        return false;
      }
    })
  );
  const stepWallMs = performance.now() - started;
  const cpuAfter = cpu();
  await Promise.all(live.map((socket) => socket.close().catch(() => {})));
  return {
    ok: finished.filter(Boolean).length,
    failures,
    connect,
    steps: latencies,
    stepWallMs,
    stepCpuMs:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : cpuAfter - cpuBefore
  };
};
