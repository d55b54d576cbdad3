// A passing run prints its result, not what the tests provoke on purpose,
// and a failure or an unexpected workerd error still shows (docs/14).
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { expected } from "./helpers/quiet-workerd";

const run = promisify(execFile);
const stack = "stack: /bin/workerd@2f201f0 /bin/workerd@2f20430\n";

describe("the workers project's filter of workerd's output", () => {
  it("drops the records of what the tests do on purpose, each whole", () => {
    for (const record of [
      `uncaught exception; exception = workerd/api/actor-state.c++:1142: failed: broken.outputGateBroken; jsg.Error: test abort\n${stack}`,
      "exception = workerd/api/web-socket.c++:821: disconnected: WebSocket peer disconnected\n",
      `exception = kj/async.c++:220: disconnected: PumpToReader was destroyed\n${stack}`,
      `e = kj/async-io-unix.c++:1298: failed: DNS lookup failed.; params.host = api.example.com; params.service = ; gai_strerror(status) = Name or service not known\n${stack}`,
      "1332 external/tcmalloc+/tcmalloc/internal/system_allocator.h:362] mprotect(0x100fc0000000, 1099511627776) failed (Cannot allocate memory)\n"
    ])
      expect(expected(record), record).toBe(true);
  });

  it("keeps everything else: failures, other errors, a record with more in it", () => {
    for (const chunk of [
      " FAIL   workers  test/workers/ws-stream.test.ts > a test\n",
      "AssertionError: expected 'test abort' to be 'reloaded'\n",
      "uncaught exception; source = Uncaught (in promise); stack = Error: internal error; reference = 8lh8ofd8u12c9ehu1m7tvicf\n",
      `uncaught exception; exception = workerd/api/actor-state.c++:1142: failed: broken.outputGateBroken; jsg.Error: Storage quota exceeded\n${stack}`,
      `exception = workerd/api/web-socket.c++:821: disconnected: WebSocket peer disconnected\nuncaught exception; source = Uncaught; stack = TypeError: x\n`,
      "e = kj/async-io-unix.c++:1298: failed: DNS lookup failed.; params.host = example.org; params.service = \n"
    ])
      expect(expected(chunk), chunk).toBe(false);
  });
});

describe("a run of a noisy file that passes", () => {
  // ws-stream aborts an object, drops sockets and starts in development
  // mode: each used to print lines here.
  it("prints its result and little else", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
    // This run's own settings must not leak into the child vitest.
    for (const name of Object.keys(env))
      if (name.startsWith("VITEST") || name === "ROOST_TEST_LOUD")
        delete env[name];
    const { stdout, stderr } = await run(
      join("node_modules", ".bin", "vitest"),
      ["run", "--project", "workers", "test/workers/ws-stream.test.ts"],
      { env }
    );
    const out = `${stdout}${stderr}`;
    expect(out).toContain("1 passed");
    for (const noise of [
      "test abort",
      "outputGateBroken",
      "WebSocket peer disconnected",
      "ROOST_DEV=1"
    ])
      expect(out).not.toContain(noise);
    expect(out.trim().split("\n").length).toBeLessThan(20);
  }, 90_000);
});
