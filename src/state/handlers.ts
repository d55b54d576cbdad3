/** @module The two built-in merge handlers of typed state (Haystack's state_utils). */

/**
 * Appends `incoming` to `current`, wrapping either when it is not a list
 * (`[1, 2]` + `3` → `[1, 2, 3]`); an absent or null current is `[]`. Always
 * a new array; neither input is changed. The element type is asserted, not
 * checked: State validates the merged list with the key's zod type.
 *
 * @example
 * mergeLists([1, 2], 3); // [1, 2, 3]
 * mergeLists(undefined, [1]); // [1]
 */
export const mergeLists = <T = unknown>(
  current: unknown,
  incoming: unknown
): T[] => {
  const head =
    current === undefined || current === null
      ? []
      : Array.isArray(current)
        ? current
        : [current];
  const tail = Array.isArray(incoming) ? incoming : [incoming];
  return [...head, ...tail] as T[];
};

/**
 * Returns `incoming`, whatever `current` was (also when incoming is null).
 *
 * @example
 * replaceValues("Alice", "Bob"); // "Bob"
 */
export const replaceValues = <T = unknown>(
  _current: unknown,
  incoming: unknown
): T => incoming as T;

/** The built-in handlers by the names `PATCH /state` uses on the wire. */
export const HANDLERS = {
  replace: replaceValues,
  merge_lists: mergeLists
} as const;

export type HandlerName = keyof typeof HANDLERS;

export const isHandlerName = (name: unknown): name is HandlerName =>
  typeof name === "string" && Object.hasOwn(HANDLERS, name);
