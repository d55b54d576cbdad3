/** @module RoostError, behind every `{ error: { code, message } }` answer, and the one table mapping its codes to HTTP statuses. */

/** Every error code Roost returns, with its HTTP status. */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  invalid_name: 400,
  unknown_state_key: 400,
  invalid_state_value: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  index_out_of_range: 404,
  method_not_allowed: 405,
  episode_not_running: 409,
  conflict: 409,
  not_your_turn: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_mismatch: 422,
  rate_limited: 429,
  internal: 500,
  // An environment's own hook (reset, step, evaluate, a rubric, frame)
  // threw: the author's bug, named with the hook and what it threw
  // (environment/hook-failure.ts), never the client's fault.
  hook_failed: 500,
  // A decision model failed (after retries) or kept choosing options that do
  // not exist; reported in a failed run's status, as the upstream's fault.
  model_error: 502,
  // A protocol's request this environment cannot answer (OpenEnv's task
  // API listing a generated, endless split, say), as OpenEnv answers it.
  not_implemented: 501,
  unavailable: 503
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** The wire shape of an error: `{ error: ErrorBody }`. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/**
 * The error behind every error answer (a decision model's failure is a
 * ModelError first, runner/model-error.ts). Its `code` decides the HTTP
 * status; its message says what went wrong and, where it can, what to do.
 *
 * @example
 * throw new RoostError("not_found", "No results under search/papers.");
 */
export class RoostError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown }
  ) {
    super(message, options);
    this.name = "RoostError";
  }

  get status(): ErrorStatus {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export const isErrorCode = (code: unknown): code is ErrorCode =>
  typeof code === "string" && Object.hasOwn(ERROR_STATUS, code);

/** Rebuilds a RoostError from a body that crossed RPC (thrown errors lose their fields there). */
export const fromErrorBody = (body: ErrorBody): RoostError =>
  new RoostError(body.code, body.message, body.details);

/** Any thrown value as an ErrorBody; unknown errors become `internal` without leaking their text. */
export const toErrorBody = (error: unknown): ErrorBody =>
  error instanceof RoostError
    ? error.toBody()
    : { code: "internal", message: "Internal error." };
