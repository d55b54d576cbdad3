/**
 * @module `npx tsx bench/profile-startup.ts [loads] [out] [config]`: a CPU
 * profile of the worker's startup, what scenario 9 times. The production
 * worker (or `config`'s, e.g. bench/core/wrangler.toml for the core) is
 * built as a deploy builds it but unminified (so each sampled line is
 * traced to its module through esbuild's `// path` comments), loaded into a
 * fresh workerd with the inspector on, and the isolate's V8 profiler runs
 * over the first request, which imports the worker. The profiles of
 * `loads` fresh workerds (default 10) are summed: self time by module and
 * by function, and total time by function. The sampler runs on wall time;
 * compare shares. `out` (default startup.cpuprofile) is the last load's.
 */

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Miniflare } from "miniflare";
import { freePort } from "../scripts/free-port.mjs";
import {
  moduleOfLine,
  type Profile,
  type ProfileNode,
  summarise
} from "./lib/cpu-profile";
import { devtools, workerTarget } from "./lib/devtools";

const main = async () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const [
    loadsArg = "10",
    out = "startup.cpuprofile",
    config = join(root, "wrangler.toml")
  ] = process.argv.slice(2);
  const dir = mkdtempSync(join(tmpdir(), "roost-profile-startup-"));
  try {
    await promisify(execFile)(
      join(root, "node_modules", ".bin", "wrangler"),
      ["deploy", "--dry-run", "--no-minify", "-c", config, "--outdir", dir],
      { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: "false" } }
    );
    const source = readFileSync(join(dir, "worker.js"), "utf8");
    const moduleOf = moduleOfLine(source);
    const date = readFileSync(config, "utf8").match(
      /^compatibility_date = "([^"]+)"/m
    )![1]!;
    const profiles: Profile[] = [];
    for (let i = 0; i < Number(loadsArg); i++) {
      const port = await freePort();
      const mf = new Miniflare({
        compatibilityDate: date,
        modulesRoot: dir,
        inspectorPort: port,
        modules: [
          {
            type: "ESModule",
            path: join(dir, "startup-entry.js"),
            contents: `let worker;
export default {
  async fetch(request, env, ctx) {
    worker ??= (await import("./worker.js")).default;
    return worker.fetch(request, {}, ctx);
  }
};`
          },
          { type: "ESModule", path: join(dir, "worker.js") }
        ]
      });
      try {
        await mf.ready;
        const dt = await devtools(await workerTarget(port));
        await dt.send("Profiler.enable");
        await dt.send("Profiler.setSamplingInterval", { interval: 50 });
        await dt.send("Profiler.start");
        const response = await mf.dispatchFetch("http://localhost/health");
        await response.text();
        const { profile } = await dt.send<{ profile: Profile }>(
          "Profiler.stop"
        );
        dt.close();
        profiles.push(profile);
        if (i === Number(loadsArg) - 1)
          writeFileSync(out, JSON.stringify(profile));
      } finally {
        await mf.dispose();
      }
    }
    const where = (node: ProfileNode) =>
      node.callFrame.url.endsWith("worker.js")
        ? moduleOf(node.callFrame.lineNumber)
        : node.callFrame.url || "(native)";
    const { busy, text } = summarise(
      profiles,
      where,
      Number(process.env.PROFILE_TOP ?? 40)
    );
    process.stdout.write(
      `${profiles.length} loads: ${(busy / profiles.length).toFixed(0)} busy samples of 50 µs each\n\n${text}`
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

await main();
