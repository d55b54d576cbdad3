// `npm start`: "Listening" only once the server answers, and a user's own
// environment file served without editing examples/worker.ts.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port.mjs";
import { waitUntilReady as wait } from "../../scripts/ready.mjs";

const listen = async (answer: (n: number) => number) => {
  let n = 0;
  const server = createServer((_, res) => {
    res.statusCode = answer(++n);
    res.end();
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${port}/health`, count: () => n };
};
const close = (server: Server) =>
  new Promise<void>((r) => server.close(() => r()));

describe("waiting for the server", () => {
  it("resolves only once the server answers 2xx", async () => {
    const s = await listen((n) => (n < 4 ? 503 : 200));
    await wait(s.url, { intervalMs: 10 });
    expect(s.count()).toBe(4);
    await close(s.server);
  });

  it("keeps trying while nothing listens yet", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/health`;
    const ready = wait(url, { intervalMs: 20 });
    await new Promise((r) => setTimeout(r, 100));
    const server = createServer((_, res) => res.end("ok"));
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    await ready;
    await close(server);
  });

  it("gives up when the server process is gone, or after the timeout", async () => {
    const s = await listen(() => 503);
    await expect(
      wait(s.url, { intervalMs: 10, stopped: () => s.count() >= 2 })
    ).rejects.toThrow(/exited/);
    await expect(
      wait(s.url, { intervalMs: 10, timeoutMs: 50 })
    ).rejects.toThrow(/did not answer/);
    await close(s.server);
  });
});

describe("npm start with an environment file of the user's", () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.pid !== undefined && child.exitCode === null)
      process.kill(-child.pid, "SIGTERM");
  });

  it("serves the environments the file exports and says Listening once it answers", async () => {
    const port = await freePort();
    child = spawn(
      process.execPath,
      [
        "scripts/start.mjs",
        "examples/own-worker/guess.ts",
        "--log-level",
        "warn"
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        env: {
          ...process.env,
          PORT: String(port),
          WRANGLER_SEND_METRICS: "false"
        }
      }
    );
    let output = "";
    const listening = new Promise<void>((resolve, reject) => {
      const seen = (d: Buffer) => {
        output += String(d);
        if (output.includes("Listening on")) resolve();
      };
      child!.stdout!.on("data", seen);
      child!.stderr!.on("data", seen);
      child!.once("exit", () => reject(new Error(`exited:\n${output}`)));
    });
    await listening;
    // The very first request after "Listening" is answered.
    const res = await fetch(`http://127.0.0.1:${port}/v1/environments`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { environments: { name: string }[] };
    expect(body.environments.map((e) => e.name)).toEqual(["guess"]);
    expect(output).toContain("examples/own-worker/guess.ts");
    // The chat app needs the catalog example, which this server lacks.
    expect(output).not.toContain("Chat example");
    expect(output.indexOf("Listening on")).toBeGreaterThan(
      output.indexOf("Starting wrangler dev")
    );
  }, 150_000);
});

describe("npm start on a port another server holds", () => {
  it("says so and exits, instead of answering the probe with the other server", async () => {
    const other = createServer((_, res) => res.end("ok"));
    const port = await freePort();
    await new Promise<void>((r) => other.listen(port, "127.0.0.1", r));
    const child = spawn(process.execPath, ["scripts/start.mjs"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PORT: String(port) }
    });
    let output = "";
    child.stdout!.on("data", (d) => (output += String(d)));
    child.stderr!.on("data", (d) => (output += String(d)));
    const code = await new Promise<number | null>((r) =>
      child.once("exit", (c) => r(c))
    );
    await close(other);
    expect(code).toBe(1);
    expect(output).toContain(`Port ${port} on 127.0.0.1 is in use`);
    expect(output).not.toContain("Listening on");
    expect(output).not.toContain("Starting wrangler dev");
  }, 60_000);
});
