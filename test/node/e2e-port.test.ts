import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port.mjs";
import { e2eInspectorPort, e2ePort } from "./helpers/e2e-port";
import { startE2eServer } from "./helpers/e2e-server";
import { claimed, listenPort, portRange, testPort } from "./helpers/test-port";

// The ports of the servers tests start (docs/14-testing.md): ROOST_E2E_PORT
// and ROOST_INSPECTOR_PORT pin the shared server's, ROOST_TEST_PORTS
// bounds every other.

const held: Server[] = [];
const hold = async (port: number) => {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  held.push(server);
};
afterEach(async () => {
  await Promise.all(held.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A range of `size` ports none of which is listened on now or handed out by this process. */
const quietRange = async (size: number) => {
  for (;;) {
    const from = await freePort();
    const ports = Array.from({ length: size }, (_, i) => from + i);
    if (ports.some((p) => p > 65535 || claimed(p))) continue;
    const probes = await Promise.all(
      ports.map(async (port) => {
        try {
          await hold(port);
          return true;
        } catch {
          return false;
        }
      })
    );
    await Promise.all(
      held.splice(0).map((s) => new Promise((r) => s.close(r)))
    );
    if (probes.every(Boolean)) return { from, to: from + size - 1 };
  }
};

describe("the shared server's pinned ports", () => {
  // An argument left undefined reads the variable: "" is a setting unset.
  it("are free ports when ROOST_E2E_PORT and ROOST_INSPECTOR_PORT are empty", async () => {
    for (const setting of ["", "  "])
      for (const pick of [e2ePort, e2eInspectorPort]) {
        const port = await pick(setting, "");
        expect(port).toBeGreaterThan(0);
        // Free: this process can listen on it.
        await hold(port);
        await new Promise((r) => held.pop()?.close(r));
      }
  });

  it("are the pinned ports when they are free", async () => {
    const port = await freePort();
    expect(await e2ePort(String(port), "")).toBe(port);
    const inspector = await freePort();
    expect(await e2eInspectorPort(` ${inspector} `)).toBe(inspector);
  });

  it("refuse a setting that is not a port, naming the variable", async () => {
    for (const setting of ["abc", "0", "65536", "80.5", "-1", "8790x"]) {
      await expect(e2ePort(setting), setting).rejects.toThrow(
        `ROOST_E2E_PORT=${setting} is not a port`
      );
      await expect(e2eInspectorPort(setting), setting).rejects.toThrow(
        `ROOST_INSPECTOR_PORT=${setting} is not a port`
      );
    }
  });

  it("refuse a pinned port another server holds, before anything starts", async () => {
    const port = await freePort();
    await hold(port);
    await expect(e2ePort(String(port))).rejects.toThrow(
      `ROOST_E2E_PORT=${port}: something already listens on 127.0.0.1:${port}`
    );
    await expect(e2eInspectorPort(String(port))).rejects.toThrow(
      `ROOST_INSPECTOR_PORT=${port}: something already listens on 127.0.0.1:${port}`
    );
  });

  it("refuse the inspector's pin when it is the HTTP port's too", async () => {
    const port = await freePort();
    expect(await e2ePort(String(port))).toBe(port);
    await expect(e2eInspectorPort(String(port))).rejects.toThrow(
      `ROOST_INSPECTOR_PORT=${port}: another server of this run already has that port`
    );
  });
});

describe("ROOST_TEST_PORTS", () => {
  it("reads a range, and refuses what is not one, naming the variable", () => {
    expect(portRange("")).toBeUndefined();
    expect(portRange(" ")).toBeUndefined();
    expect(portRange("20000-20999")).toEqual({ from: 20000, to: 20999 });
    expect(portRange(" 20000 - 20999 ")).toEqual({ from: 20000, to: 20999 });
    for (const setting of ["abc", "20000", "20999-20000", "0-10", "1-65536"])
      expect(() => portRange(setting), setting).toThrow(
        `ROOST_TEST_PORTS=${setting} is not a range of ports`
      );
  });

  it("gives every server a different free port of the range, passing over one another holds", async () => {
    const range = await quietRange(8);
    const setting = `${range.from}-${range.to}`;
    await hold(range.from + 3);
    const ports = [];
    for (let i = 0; i < 7; i++) ports.push(await testPort(setting));
    expect(new Set(ports).size).toBe(7);
    expect([...ports].sort((a, b) => a - b)).toEqual(
      [0, 1, 2, 4, 5, 6, 7].map((i) => range.from + i)
    );
    // The range is used up: the error says so rather than a port outside it.
    await expect(testPort(setting)).rejects.toThrow(
      `ROOST_TEST_PORTS=${setting}: every port of the range is taken`
    );
  });

  it("bounds the shared server's ports when they are not pinned, and a listener's", async () => {
    const range = await quietRange(4);
    const setting = `${range.from}-${range.to}`;
    for (const port of [
      await e2ePort("", setting),
      await e2eInspectorPort("", setting),
      await listenPort(setting)
    ]) {
      expect(port).toBeGreaterThanOrEqual(range.from);
      expect(port).toBeLessThanOrEqual(range.to);
    }
    // Unset, a listener lets the system pick as it binds.
    expect(await listenPort("")).toBe(0);
  });

  it("puts a wrangler dev's HTTP and inspector ports in the range", async () => {
    const range = await quietRange(20);
    const before = process.env.ROOST_TEST_PORTS;
    process.env.ROOST_TEST_PORTS = `${range.from}-${range.to}`;
    try {
      const server = await startE2eServer({ vars: { ROOST_DEV: "1" } });
      try {
        const port = Number(new URL(server.baseUrl).port);
        for (const p of [port, server.inspectorPort]) {
          expect(p).toBeGreaterThanOrEqual(range.from);
          expect(p).toBeLessThanOrEqual(range.to);
        }
        expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
        // The DevTools endpoint of the worker's isolate answers there.
        const targets = (await (
          await fetch(`http://127.0.0.1:${server.inspectorPort}/json`)
        ).json()) as { webSocketDebuggerUrl?: string }[];
        expect(targets[0]?.webSocketDebuggerUrl).toMatch(/^ws:/);
      } finally {
        await server.stop();
      }
    } finally {
      if (before === undefined) delete process.env.ROOST_TEST_PORTS;
      else process.env.ROOST_TEST_PORTS = before;
    }
  }, 120_000);
});
