/** @module Waiting in tests for something a callback will make true: one helper, with a timeout that names what never came. */

export interface Signal {
  /** Wakes every waiter to check its predicate again. */
  notify(): void;
  /**
   * Resolves once `predicate` holds, checked now and after each `notify`;
   * rejects after `timeoutMs` (default 10 s) or as soon as `stop()` says
   * waiting is pointless (a closed socket), with `what` in the message.
   */
  until(
    predicate: () => boolean,
    options?: {
      timeoutMs?: number;
      what?: string;
      stop?: () => string | undefined;
    }
  ): Promise<void>;
}

export const createSignal = (): Signal => {
  const waiters = new Set<() => void>();
  return {
    notify: () => {
      for (const wake of [...waiters]) wake();
    },
    until: async (predicate, options = {}) => {
      const deadline = Date.now() + (options.timeoutMs ?? 10_000);
      while (!predicate()) {
        const stopped = options.stop?.();
        if (stopped !== undefined) throw new Error(stopped);
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(
            `Timed out waiting${options.what ? ` for ${options.what}` : ""}.`
          );
        }
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiters.add(wake);
        });
      }
    }
  };
};
