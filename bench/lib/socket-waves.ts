/**
 * @module Scenario 12's sessions over any contender's socket: one session
 * start to end, or N at once phase by phase. A contender is a `Dial` that
 * opens its socket (making its session first where it needs to), so
 * OpenEnv's socket, Roost's session socket and the bare DO's run alike.
 */

/**
 * Long enough that only a stuck server trips it: thousands of sessions
 * queue for two shared cores.
 */
export const TIMEOUT_MS = 300_000;

/** One contender's socket as a trainer's episode uses it: each call waits for its answer and throws the refusal. */
export interface EpisodeSocket {
  reset(): Promise<void>;
  step(): Promise<void>;
  /** Ends the episode and its session; resolves once the socket closed. */
  close(): Promise<void>;
}

export interface Dialed {
  socket: EpisodeSocket;
  /** Milliseconds making the session over HTTP before the socket opened; 0 where the socket makes its own. */
  createMs: number;
}

/** Opens one socket of a contender; a failure's message says where it stopped. */
export type Dial = () => Promise<Dialed>;

/** Milliseconds each part took, client-side. */
export interface SessionTimes {
  /** From the first request (the HTTP create, if any) to the socket's open. */
  connect: number;
  /** The HTTP create's share of `connect` (0 where there is none). */
  create: number;
  reset: number;
  steps: number[];
  /** From the close (or delete) frame to the socket's close. */
  close: number;
}

export type Outcome =
  | { ok: true; times: SessionTimes }
  | { ok: false; reason: string; steps: number };

/** Runs one session; a failure says in which phase and why, instead of throwing. */
export const runSession = async (
  dial: Dial,
  steps: number
): Promise<Outcome> => {
  const times: SessionTimes = {
    connect: 0,
    create: 0,
    reset: 0,
    steps: [],
    close: 0
  };
  let at = "connect";
  try {
    let started = performance.now();
    const { socket, createMs } = await dial();
    times.connect = performance.now() - started;
    times.create = createMs;
    at = "reset";
    started = performance.now();
    await socket.reset();
    times.reset = performance.now() - started;
    for (let i = 0; i < steps; i++) {
      at = "step";
      started = performance.now();
      await socket.step();
      times.steps.push(performance.now() - started);
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
  /** Sessions the wave started. */
  sessions: number;
  /** Sessions that got through every step. */
  ok: number;
  failures: string[];
  /** Connect latencies, the HTTP create's included where there is one. */
  connect: number[];
  /** The HTTP create's share of each connect (empty where there is none). */
  create: number[];
  /** Step latencies of the step phase, every session's. */
  steps: number[];
  /** The step phase's wall time, from its first step sent to its last answer. */
  stepWallMs: number;
  /** workerd CPU over the step phase (undefined without /proc). */
  stepCpuMs: number | undefined;
}

/** Runs `phase` on every socket at once; a socket whose phase failed drops out, its reason kept. */
const everySocket = async (
  sockets: readonly EpisodeSocket[],
  failures: string[],
  at: string,
  phase: (socket: EpisodeSocket) => Promise<void>
): Promise<EpisodeSocket[]> =>
  (
    await Promise.all(
      sockets.map(async (socket) => {
        try {
          await phase(socket);
          return socket;
        } catch (error) {
          failures.push(`${at}: ${(error as Error).message}`);
          return undefined;
        }
      })
    )
  ).filter((s): s is EpisodeSocket => s !== undefined);

/**
 * N sessions, phase by phase, as a trainer's episodes run once they are
 * going: every socket connected, then every session reset, then the steps
 * (each session's in turn, all sessions at once) timed alone, then every
 * socket closed. `cpu` reads workerd's CPU time around the step phase.
 */
export const runPhasedWave = async (
  dial: Dial,
  sessions: number,
  steps: number,
  cpu: () => number | undefined
): Promise<PhasedWave> => {
  const failures: string[] = [];
  const connect: number[] = [];
  const create: number[] = [];
  const opened = await Promise.all(
    Array.from({ length: sessions }, async () => {
      const started = performance.now();
      try {
        const { socket, createMs } = await dial();
        connect.push(performance.now() - started);
        if (createMs > 0) create.push(createMs);
        return socket;
      } catch (error) {
        failures.push(`connect: ${(error as Error).message}`);
        return undefined;
      }
    })
  );
  const live = await everySocket(
    opened.filter((s): s is EpisodeSocket => s !== undefined),
    failures,
    "reset",
    (socket) => socket.reset()
  );
  const latencies: number[] = [];
  const cpuBefore = cpu();
  const started = performance.now();
  const finished = await everySocket(live, failures, "step", async (socket) => {
    for (let i = 0; i < steps; i++) {
      const sent = performance.now();
      await socket.step();
      latencies.push(performance.now() - sent);
    }
  });
  const stepWallMs = performance.now() - started;
  const cpuAfter = cpu();
  await Promise.all(live.map((socket) => socket.close().catch(() => {})));
  return {
    sessions,
    ok: finished.length,
    failures,
    connect,
    create,
    steps: latencies,
    stepWallMs,
    stepCpuMs:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : cpuAfter - cpuBefore
  };
};
