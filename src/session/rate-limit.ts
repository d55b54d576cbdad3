/** @module A token bucket per session: mutating calls beyond the rate get 429. */

/**
 * Refills `perSecond` tokens a second up to a burst of the same size, so a
 * client may send a second's worth at once. Kept in memory: a limit per
 * object is what protects the object, and it resets harmlessly on eviction.
 */
export class TokenBucket {
  #tokens: number;
  #last: number;

  constructor(
    readonly perSecond: number,
    now: number
  ) {
    this.#tokens = perSecond;
    this.#last = now;
  }

  /** Takes a token, or says how many seconds until one is free. */
  take(now: number): { ok: true } | { ok: false; retryAfter: number } {
    const elapsed = Math.max(0, now - this.#last) / 1000;
    this.#tokens = Math.min(
      this.perSecond,
      this.#tokens + elapsed * this.perSecond
    );
    this.#last = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return { ok: true };
    }
    return {
      ok: false,
      retryAfter: Math.ceil((1 - this.#tokens) / this.perSecond)
    };
  }
}
