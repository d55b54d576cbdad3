/** @module The one rule for names that end up in URLs and in a model's function list. */

/**
 * OpenAI's function-name rule, for the names of tools, results,
 * environments, splits and state keys; the wire's NameSchema checks it too.
 */
export const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
