/** @module Test-only wrappers for the overlay suites: counting a base's calls, flushing an overlay as it goes. */

type Method = (...args: unknown[]) => unknown;

/** Wraps every method of `target`, calling `after(method, result)` once it returns. */
const wrap = <T extends object>(
  target: T,
  after: (method: string, result: unknown) => void
): T =>
  new Proxy(target, {
    get(obj, prop) {
      // The real object as `this`: classes keep their state in #private fields.
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      return (...args: unknown[]) => {
        const result = (value as Method).apply(obj, args);
        after(prop, result);
        return result;
      };
    }
  });

/** Objects in what a store backend's `entry`/`entries` returned. */
const objectsIn = (result: unknown): number => {
  const list = Array.isArray(result) ? result : [result];
  return list.reduce(
    (n: number, e: { objects?: unknown[] }) => n + (e?.objects?.length ?? 0),
    0
  );
};

/**
 * A base that counts its calls and the entry objects it hands out: a
 * spy on what an overlay asks of it, with the base's behaviour unchanged.
 */
export const countCalls = <T extends object>(target: T) => {
  const calls = new Map<string, number>();
  const counter = {
    backend: wrap(target, (method, result) => {
      calls.set(method, (calls.get(method) ?? 0) + 1);
      if (method === "entry" || method === "entries") {
        counter.objectsRead += objectsIn(result);
      }
    }),
    objectsRead: 0,
    /** Calls of the given methods, summed. */
    count: (...methods: string[]): number =>
      methods.reduce((n, m) => n + (calls.get(m) ?? 0), 0),
    reset: (): void => {
      calls.clear();
      counter.objectsRead = 0;
    }
  };
  return counter;
};

/**
 * The overlay, flushed after every `n`-th call of one of `writes`: a
 * contract suite that expects a fresh, empty store then reads a mix of
 * base and pending data, and every flush is checked by what follows it.
 */
export const flushEvery = <T extends { flush(): void }>(
  overlay: T,
  n: number,
  writes: readonly string[]
): T => {
  let count = 0;
  return wrap(overlay, (method) => {
    if (writes.includes(method) && ++count % n === 0) overlay.flush();
  });
};

/** The write methods of a StoreBackend. */
export const STORE_WRITES = [
  "createKey",
  "nextEntryNumber",
  "setEntryCounter",
  "append",
  "set",
  "removeAt",
  "clear"
] as const;

/** A small seeded PRNG (mulberry32): the same seed, the same sequence. */
export const prng = (seed: number) => {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number): number => Math.floor(next() * n),
    pick: <V>(list: readonly V[]): V => list[Math.floor(next() * list.length)]!
  };
};
