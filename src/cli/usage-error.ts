/** @module The error of a bad command line: its message is for the user, the exit code is 2. */

export class UsageError extends Error {
  override readonly name = "UsageError";
}
