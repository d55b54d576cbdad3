/** @module Every kind of update a tool reports, as the wire names them. */

export const UPDATE_KINDS = [
  "status",
  "text",
  "warning",
  "self_healing_error",
  "progress",
  "log"
] as const;
