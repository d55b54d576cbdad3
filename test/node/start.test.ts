// `npm start`: "Listening" only once the server answers, and a user's own
// environment files served without editing examples/worker.ts: from
// anywhere, two servers at once, and a definition error waited out.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { waitUntilReady as wait } from "../../scripts/ready.mjs";
import { postJson, spawnNpmStart, stopNpmStart } from "./helpers/npm-start";
import { testPort } from "./helpers/test-port";

const root = new URL("../..", import.meta.url).pathname;

const listen = async (answer: (n: number) => number) => {
  let n = 0;
  const server = createServer((_, res) => {
    res.statusCode = answer(++n);
    res.end();
  });
  const port = await testPort();
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
    const port = await testPort();
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

const start = spawnNpmStart;
const stop = stopNpmStart;
const environments = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/v1/environments`);
  return { status: res.status, body: (await res.json()) as EnvironmentsBody };
};
interface EnvironmentsBody {
  environments?: { name: string }[];
  error?: { code: string; message: string };
}
const post = postJson;

// A user's file may take zod's `z` by name: served with zod-lean's whole
// one, not the ZodType-only `z` of Roost's own worker (src/zod-slim.ts).
const OUTSIDE = (
  name: string
) => `import { defineEnvironment } from "roost-edge/core";
import { z } from "zod";

export const outside = defineEnvironment({
  name: ${JSON.stringify(name)},
  description: "Lives outside the clone.",
  task: z.object({}).default({}),
  tools: (tool) => ({
    ping: tool({
      description: "Ping.",
      input: z.object({}),
      run: (_, ctx) => {
        ctx.episode.end({ reward: 1 });
        return "pong";
      }
    })
  }),
  reset: () => "Call ping."
});
`;

describe("two npm start servers of the user's own files at once", () => {
  const children: ChildProcess[] = [];
  const work = mkdtempSync(join(tmpdir(), "roost-start-"));
  afterAll(async () => {
    await Promise.all(children.map(stop));
    rmSync(work, { recursive: true, force: true });
  });

  it("each serves its own files: one from the clone, one outside it that waits for its definition error's fix", async () => {
    // A file outside the clone importing roost-edge/core, with a bad name.
    const file = join(work, "my-env.ts");
    writeFileSync(file, OUTSIDE("Bad Name!"));
    const [portA, portB] = [await testPort(), await testPort()];
    const a = start(
      ["examples/own-worker/guess.ts", "--log-level", "warn"],
      portA,
      await testPort()
    );
    const b = start([file, "--log-level", "warn"], portB, await testPort());
    children.push(a.child, b.child);
    await Promise.all([a.listening, b.listening]);

    // The clone's file: the very first request after "Listening" is answered.
    expect(await environments(portA)).toEqual({
      status: 200,
      body: { environments: [expect.objectContaining({ name: "guess" })] }
    });
    expect(a.output()).toContain("examples/own-worker/guess.ts");
    // The chat app needs the catalog example, which this server lacks.
    expect(a.output()).not.toContain("Chat example");
    expect(a.output().indexOf("Listening on")).toBeGreaterThan(
      a.output().indexOf("Starting wrangler dev")
    );

    // The broken file: a live server answering what to fix, the log saying it
    // with a stack that leads to the file, and wrangler still running.
    const broken = await environments(portB);
    expect(broken.status).toBe(503);
    expect(broken.body.error?.code).toBe("unavailable");
    expect(broken.body.error?.message).toContain(file);
    expect(broken.body.error?.message).toContain(
      'Environment name "Bad Name!"'
    );
    expect(broken.body.error?.message).toContain("Fix it and save");
    expect(b.output()).toContain(`${file} failed to load`);
    expect(b.output()).toContain("Not serving yet");
    expect(b.output()).toMatch(/my-env\.ts:\d+:\d+/);
    expect(b.child.exitCode).toBeNull();

    // Fixed and saved: served without a restart, sessions and all.
    writeFileSync(file, OUTSIDE("outside"));
    let fixed = await environments(portB);
    while (fixed.status !== 200) {
      await new Promise((r) => setTimeout(r, 250));
      fixed = await environments(portB);
    }
    expect(fixed.body.environments?.map((e) => e.name)).toEqual(["outside"]);
    const base = `http://127.0.0.1:${portB}/v1/sessions`;
    const created = await post(base, { environment: "outside" });
    expect(created.status).toBe(201);
    const { session_id: id, token } = created.body as {
      session_id: string;
      token: string;
    };
    expect((await post(`${base}/${id}/reset`, {}, token)).status).toBe(200);
    const step = await post(
      `${base}/${id}/step`,
      {
        action: {
          tool_calls: [{ id: "c1", function: { name: "ping", arguments: {} } }]
        }
      },
      token
    );
    expect(step.body).toMatchObject({ reward: 1, done: true });
    // A reload after a save is wrangler's own: the watch on a dying
    // workerd (dev-watch.ts) lets it be.
    expect(b.output()).not.toContain("workerd process died");
    // The other server kept its own worker through all of it.
    expect(
      (await environments(portA)).body.environments?.map((e) => e.name)
    ).toEqual(["guess"]);

    // Each had its own work folder, removed when it stops.
    const folders = [portA, portB].map((p) => join(root, ".roost", String(p)));
    for (const folder of folders) expect(existsSync(folder)).toBe(true);
    await Promise.all([stop(a.child), stop(b.child)]);
    for (const folder of folders) expect(existsSync(folder)).toBe(false);
  }, 240_000);
});

describe("npm start on a port another server holds", () => {
  it("says so and exits, instead of answering the probe with the other server", async () => {
    const other = createServer((_, res) => res.end("ok"));
    const port = await testPort();
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

describe("npm start -- --port N, as the port hint says", () => {
  it("serves on N, given as --port N or --port=N, over PORT", async () => {
    const [n1, n2] = [await testPort(), await testPort()];
    const servers = [
      start(["--port", String(n1)], await testPort(), await testPort()),
      start([`--port=${n2}`], await testPort(), await testPort())
    ];
    try {
      await Promise.all(servers.map((s) => s.listening));
      for (const [i, n] of [n1, n2].entries()) {
        expect(servers[i]!.output()).toContain(
          `Listening on http://127.0.0.1:${n}`
        );
        expect((await environments(n)).status).toBe(200);
      }
    } finally {
      await Promise.all(servers.map((s) => stop(s.child)));
    }
  }, 240_000);
});
