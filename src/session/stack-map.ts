/**
 * @module In development, stacks in the author's files. The bundle wrangler
 * runs is not what the author wrote, and a Worker cannot read its own
 * source map; `roost-edge dev` serves one that can (cli/stack-map-host.ts)
 * and tells the worker where (ROOST_STACK_MAP_URL).
 */

/** How long a stack may take to map before it is sent as it is. */
const MAP_TIMEOUT_MS = 2_000;

/**
 * The mapper of a development server at `url`, or undefined without one
 * (or outside development). A stack it cannot map stays as V8 wrote it:
 * mapping helps the author and must never cost them the stack.
 */
export const stackMapper = (
  bindings: unknown,
  dev: boolean
): ((stack: string) => Promise<string>) | undefined => {
  const url =
    dev && typeof bindings === "object" && bindings !== null
      ? (bindings as { ROOST_STACK_MAP_URL?: unknown }).ROOST_STACK_MAP_URL
      : undefined;
  if (typeof url !== "string" || url === "") return undefined;
  return async (stack) => {
    try {
      const res = await fetch(url, {
        method: "POST",
        body: stack,
        signal: AbortSignal.timeout(MAP_TIMEOUT_MS)
      });
      return res.ok ? await res.text() : stack;
    } catch {
      return stack;
    }
  };
};
