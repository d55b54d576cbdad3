/**
 * @module Builds the bench worker once and serves that build under
 * `wrangler dev` on a free port with a throwaway state folder. A frozen
 * build, because `wrangler dev` reloads (and drops in-flight requests)
 * whenever a source file changes, and others edit `src/` while we measure.
 * With `agents`, the build is bench/agents/worker.ts: the same worker plus
 * the Agents SDK contender, whose package is installed on first use.
 */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../../scripts/free-port.mjs";
import { waitUntilReady } from "../../scripts/ready.mjs";
import { progress } from "./stats";

export interface Server {
  baseUrl: string;
  /** The process group of wrangler and its workerd processes. */
  pgid: number;
  stop(): Promise<void>;
}

const stopGroup = async (child: ChildProcess): Promise<void> => {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  // The child leads its own process group: this stops wrangler and workerd.
  process.kill(-pid, "SIGTERM");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) process.kill(-pid, "SIGKILL");
};

/**
 * The Agents SDK contender's additions to bench/wrangler.toml: its class and
 * binding (`routeAgentRequest` finds it as "bench-agent"), and nodejs_compat,
 * which the SDK's imports need. Roost and the Agent then share one worker,
 * so one workerd serves both.
 */
const withAgent = (toml: string): string =>
  `${toml.replace(
    /^compatibility_date = .*$/m,
    (line) => `${line}\ncompatibility_flags = ["nodejs_compat"]`
  )}
[[durable_objects.bindings]]
name = "BENCH_AGENT"
class_name = "BenchAgent"

[[migrations]]
tag = "v2"
new_sqlite_classes = ["BenchAgent"]
`;

/** bench/wrangler.toml with another `main` (and the Agent, if asked), written into `dir`. */
const configWithMain = (
  root: string,
  dir: string,
  file: string,
  main: string,
  agents: boolean
): string => {
  const path = join(dir, file);
  const source = readFileSync(join(root, "bench", "wrangler.toml"), "utf8");
  const config = source.replace(
    /^main = .*$/m,
    `main = ${JSON.stringify(main)}`
  );
  writeFileSync(path, agents ? withAgent(config) : config);
  return path;
};

/**
 * Installs bench/agents' pinned packages (the Agents SDK and what it needs)
 * unless that version is already there. Root `npm ci` never installs them.
 */
export const ensureAgentsSdk = async (root: string): Promise<void> => {
  const dir = join(root, "bench", "agents");
  const read = (path: string) => JSON.parse(readFileSync(path, "utf8"));
  const pinned: string = read(join(dir, "package.json")).dependencies.agents;
  const installed = join(dir, "node_modules", "agents", "package.json");
  if (existsSync(installed) && read(installed).version === pinned) return;
  progress(
    `installing the Agents SDK ${pinned} into bench/agents (npm ci --prefix bench/agents, once)`
  );
  try {
    await promisify(execFile)(
      "npm",
      ["ci", "--prefix", dir, "--no-audit", "--no-fund"],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 }
    );
  } catch (error) {
    const { stderr = "" } = error as { stderr?: string };
    throw new Error(
      `npm ci --prefix bench/agents failed: ${(error as Error).message}\n${stderr}`
    );
  }
};

/**
 * Bundles the bench worker as a deploy would, and answers the path of a
 * config whose `main` is that bundle. Both configs live in `dir`, so
 * wrangler's scratch files do too.
 */
const freeze = async (
  root: string,
  dir: string,
  agents: boolean
): Promise<string> => {
  const source = configWithMain(
    root,
    dir,
    "source.toml",
    join(root, "bench", ...(agents ? ["agents", "worker.ts"] : ["worker.ts"])),
    agents
  );
  await promisify(execFile)(
    join(root, "node_modules", ".bin", "wrangler"),
    ["deploy", "--dry-run", "-c", source, "--outdir", join(dir, "build")],
    { cwd: dir, env: { ...process.env, WRANGLER_SEND_METRICS: "false" } }
  );
  return configWithMain(root, dir, "wrangler.toml", "build/worker.js", agents);
};

/**
 * The bench worker under `wrangler dev` with ROOST_DEV=1 and ROOST_BENCH=1,
 * ready when /health answers; with `agents`, the one that also serves the
 * Agents SDK contender.
 */
export const startServer = async (
  root: string,
  extraArgs: string[] = [],
  options: { agents?: boolean } = {}
): Promise<Server> => {
  const agents = options.agents ?? false;
  if (agents) await ensureAgentsSdk(root);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "roost-bench-"));
  const stateDir = join(dir, "state");
  mkdirSync(stateDir);
  const config = await freeze(root, dir, agents);
  const child = spawn(
    join(root, "node_modules", ".bin", "wrangler"),
    [
      "dev",
      "-c",
      config,
      "--no-bundle",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      stateDir,
      "--var",
      "ROOST_DEV:1",
      "--var",
      "ROOST_BENCH:1",
      "--log-level",
      "warn",
      ...extraArgs
    ],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" }
    }
  );
  let output = "";
  const keep = (d: unknown) => {
    output = (output + String(d)).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const stop = async () => {
    await stopGroup(child);
    child.stdout?.destroy();
    child.stderr?.destroy();
    rmSync(dir, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${baseUrl}/health`, {
      stopped: () => child.exitCode !== null
    });
  } catch (error) {
    await stop();
    throw new Error(`wrangler dev: ${(error as Error).message}\n${output}`);
  }
  return { baseUrl, pgid: child.pid!, stop };
};
