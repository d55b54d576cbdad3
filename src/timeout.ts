/** @module A promise that gives up: for hooks and checks that must not hold a session forever. */

/**
 * What `work` answers, or a rejection with `it did not finish within <ms>
 * ms` once `ms` have passed; the timer is cleared either way. A synchronous
 * throw becomes a rejection.
 */
export const withinTime = async <T>(
  work: () => T | Promise<T>,
  ms: number
): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(work),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`it did not finish within ${ms} ms`)),
          ms
        );
      })
    ]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
};
