/** @module The error a decision model throws, marked with whether trying again could help. */

/**
 * A failed model call. `retryable` is what `withRetries` looks at: timeouts,
 * overload (5xx, 429, 408) and unparsable output may go away on another try;
 * a bad key or a rejected request will not. `status` is the HTTP status when
 * there was one.
 *
 * @example
 * throw new ModelError("Model server answered 503: overloaded.", true, 503);
 */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown }
  ) {
    super(message, options);
    this.name = "ModelError";
  }
}

/** Statuses worth another try: server trouble, rate limits and request timeouts. */
export const isRetryableStatus = (status: number): boolean =>
  status >= 500 || status === 429 || status === 408;
