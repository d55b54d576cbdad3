/** @module The timers the client waits on, injectable so tests drive backoff and heartbeats without sleeping. */

/** An opaque timer handle: a number in browsers, an object in Node. */
export type TimerHandle = unknown;

/** What the client needs from time: the current time and one-shot timers. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock of the platform. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) =>
    // Both platforms accept their own handle type back; TS only knows one.
    globalThis.clearTimeout(handle as Parameters<typeof clearTimeout>[0])
};

/** Resolves after `ms` on `clock`. */
export const sleep = (clock: Clock, ms: number): Promise<void> =>
  new Promise((resolve) => {
    clock.setTimeout(resolve, ms);
  });

/**
 * Exponential backoff with "equal jitter": half the delay is fixed, half is
 * random, so many clients dropped at once do not come back in lockstep,
 * yet none retries almost immediately.
 *
 * @example
 * backoffDelay(3, { baseMs: 250, maxMs: 30_000 }, Math.random); // 1000–2000
 */
export const backoffDelay = (
  attempt: number,
  options: { baseMs: number; maxMs: number },
  random: () => number
): number => {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
};
