/**
 * @module `npx tsx bench/profile.ts [step|baseline|health|openenv] [requests] [out]`:
 * a CPU profile of workerd while it serves `requests` (default 1500)
 * requests one at a time (`openenv`: the counter's `incr` as step frames,
 * ten per OpenEnv socket, each connected and reset before the profile), with self time summed by function and by source
 * file. It starts the bench worker as `npm run bench` does (a frozen build
 * under `wrangler dev`) with `--inspector-port`, and drives the isolate's
 * V8 profiler over the DevTools protocol (Profiler.start / Profiler.stop).
 * Locally the worker and its Durable Objects share one isolate, so the
 * profile holds both sides of the RPC. The bundle is unminified, so each
 * sampled line is traced to its module through esbuild's `// path`
 * comments. The sampler runs on wall time, so on a loaded machine compare
 * shares (or runs made back to back), not milliseconds. `out` (default
 * profile.cpuprofile) opens in Chrome DevTools; PROFILE_TOP sets the
 * lines per table (default 40).
 */

import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../scripts/free-port.mjs";
import { Api } from "./lib/api";
import { moduleOfLine, type Profile, summarise } from "./lib/cpu-profile";
import { devtools, workerTarget } from "./lib/devtools";
import { openSocket, STEP } from "./lib/openenv-client";
import { startServer } from "./lib/server";

/** Steps per OpenEnv episode, as scenario 12 plays them. */
const EPISODE_STEPS = 10;

/** Lines per table; PROFILE_TOP=200 lists more. */
const TOP = Number(process.env.PROFILE_TOP ?? 40);

const main = async () => {
  const [target = "step", countArg = "1500", out = "profile.cpuprofile"] =
    process.argv.slice(2);
  const count = Number(countArg);
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const port = await freePort();
  const server = await startServer(root, ["--inspector-port", String(port)]);
  try {
    const api = new Api(server.baseUrl);
    const session = await api.create();
    await api.reset(session);
    let n = 0;
    // The phase a trainer feels: episodes of ten steps, each on a socket of
    // its own, connected and reset before the profile starts, so neither
    // connect nor reset nor a long session's log retention is in it.
    const openEnvUrl = `${server.baseUrl.replace(/^http/, "ws")}/v1/environments/counter/openenv/ws`;
    const episodes = async (count: number) => {
      const sockets = [];
      for (let i = 0; i < Math.ceil(count / EPISODE_STEPS); i++) {
        const socket = await openSocket(openEnvUrl);
        // A target the steps never reach, so no episode ends early.
        await socket.request(
          '{"type": "reset", "data": {"task": {"target": 1000000}}}'
        );
        sockets.push(socket);
      }
      return sockets;
    };
    const warm = target === "openenv" ? await episodes(300) : [];
    const timed = target === "openenv" ? await episodes(count) : [];
    let socketsFor = warm;
    const request = {
      step: () => api.step(session, "noop"),
      baseline: () => api.baseline("profile", { n: n++ }),
      health: () => api.health(),
      openenv: () => socketsFor[Math.floor(n++ / EPISODE_STEPS)]!.request(STEP)
    }[target];
    if (request === undefined) throw new Error(`Unknown target ${target}.`);
    for (let i = 0; i < 300; i++) await request(); // warm up the JIT
    socketsFor = timed;
    n = 0;
    const dt = await devtools(await workerTarget(port));
    await dt.send("Profiler.enable");
    await dt.send("Profiler.setSamplingInterval", { interval: 100 });
    await dt.send("Profiler.start");
    const started = performance.now();
    for (let i = 0; i < count; i++) await request();
    const seconds = (performance.now() - started) / 1000;
    const { profile } = await dt.send<{ profile: Profile }>("Profiler.stop");
    writeFileSync(out, JSON.stringify(profile));
    const script = profile.nodes.find((node) =>
      node.callFrame.url.endsWith("worker.js")
    )?.callFrame.scriptId;
    await dt.send("Debugger.enable");
    const moduleOf =
      script === undefined
        ? () => "(bundle)"
        : moduleOfLine(
            (
              await dt.send<{ scriptSource: string }>(
                "Debugger.getScriptSource",
                { scriptId: script }
              )
            ).scriptSource
          );
    dt.close();
    const { busy, idleMs, text } = summarise(
      [profile],
      ({ callFrame: f }) =>
        f.url.endsWith("worker.js")
          ? moduleOf(f.lineNumber)
          : f.url || "(native)",
      TOP
    );
    const busyMs = seconds * 1000 - idleMs;
    process.stdout.write(
      [
        `${count} ${target} requests in ${seconds.toFixed(1)} s: ${(busy / count).toFixed(2)} busy samples and ${(busyMs / count).toFixed(2)} ms not idle per request (wall time: on a loaded machine, waits for a core count too); profile in ${out}`,
        "",
        text
      ].join("\n")
    );
  } finally {
    await server.stop();
  }
};

await main();
