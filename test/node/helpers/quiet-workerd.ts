/**
 * The `workers` project's global setup: drops the lines workerd prints for
 * things the tests do on purpose, so that a run's output is its result.
 * The pool hands each of workerd's log records to the main process as one
 * write (the record and its `stack:` line), so each pattern matches one
 * whole write, anchored at both ends; anything else, vitest's own output
 * included, is written as it comes. ROOST_TEST_LOUD=1 keeps everything.
 */

const stack = String.raw`(\nstack:[^\n]*)?\n$`;

export const EXPECTED: readonly RegExp[] = [
  // An object a durability test aborted (`ctx.abort("test abort")`).
  new RegExp(
    String.raw`^uncaught exception; exception = workerd/api/actor-state\.c\+\+:\d+: failed: broken\.outputGateBroken; jsg\.Error: test abort${stack}`
  ),
  // A test's client socket went away while its session held the other end.
  new RegExp(
    String.raw`^exception = workerd/api/web-socket\.c\+\+:\d+: disconnected: WebSocket peer disconnected${stack}`
  ),
  // A body or socket stream cancelled by its reader before it was drained.
  new RegExp(
    String.raw`^exception = kj/async\.c\+\+:\d+: disconnected: PumpToReader was destroyed${stack}`
  ),
  // The code-sandbox tests fetch a host the test machines cannot resolve.
  new RegExp(
    String.raw`^e = kj/async-io-unix\.c\+\+:\d+: failed: DNS lookup failed\.; params\.host = api\.example\.com; [^\n]*${stack}`
  ),
  // The allocator asking for a terabyte of address space at workerd's start,
  // refused where memory is capped; it tries other addresses and goes on.
  /^\d+ external\/tcmalloc\+\/tcmalloc\/internal\/system_allocator\.h:\d+\] mprotect\(0x[0-9a-f]+, \d+\) failed \(Cannot allocate memory\)\n$/
];

export const expected = (chunk: unknown): boolean =>
  typeof chunk === "string" && EXPECTED.some((pattern) => pattern.test(chunk));

export default function setup() {
  if (process.env.ROOST_TEST_LOUD === "1") return;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write;
    stream.write = function (this: typeof stream, chunk: unknown, ...rest) {
      if (expected(chunk)) return true;
      return write.call(this, chunk as string, ...(rest as []));
    } as typeof stream.write;
  }
}
