import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port.mjs";
import { e2ePort } from "./helpers/e2e-port";

// ROOST_E2E_PORT pins the port of the end-to-end server (docs/14-testing.md).
describe("the end-to-end server's port", () => {
  let held: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => (held ? held.close(r) : r(undefined)));
    held = undefined;
  });

  it("is a free port when ROOST_E2E_PORT is unset or empty", async () => {
    for (const setting of [undefined, "", "  "]) {
      const port = await e2ePort(setting);
      expect(port).toBeGreaterThan(0);
      // Free: this process can listen on it.
      held = createServer();
      await new Promise<void>((r) => held?.listen(port, "127.0.0.1", r));
      await new Promise((r) => held?.close(r));
      held = undefined;
    }
  });

  it("is the pinned port when it is free", async () => {
    const port = await freePort();
    expect(await e2ePort(String(port))).toBe(port);
    expect(await e2ePort(` ${port} `)).toBe(port);
  });

  it("refuses a setting that is not a port, naming the variable", async () => {
    for (const setting of ["abc", "0", "65536", "80.5", "-1", "8790x"])
      await expect(e2ePort(setting), setting).rejects.toThrow(
        `ROOST_E2E_PORT=${setting} is not a port`
      );
  });

  it("refuses a pinned port another server holds, before anything starts", async () => {
    const port = await freePort();
    held = createServer();
    await new Promise<void>((r) => held?.listen(port, "127.0.0.1", r));
    await expect(e2ePort(String(port))).rejects.toThrow(
      `ROOST_E2E_PORT=${port}: something already listens on 127.0.0.1:${port}`
    );
  });
});
