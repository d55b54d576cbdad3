/** @module The one rule for names that end up in URLs and in a model's function list. */

/** OpenAI's function-name rule, used for tool names, result names and state keys. */
export const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
