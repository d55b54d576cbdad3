/**
 * @module The development server's sandbox host: a workerd process of its
 * own where code tools' isolates run, its memory capped, restarted the
 * moment it dies.
 *
 * Local workerd has no memory limit per isolate: code that allocates
 * without end grows one process until V8 aborts it, and with it every
 * session it serves. Here the model's code runs in a second process whose
 * every isolate has a V8 heap cap (`memoryMb`, as the platform's 128 MB),
 * and whose whole size is watched (`processMb`: memory V8 does not count,
 * such as ArrayBuffers). Past either the process ends; the run it was
 * serving fails with a clear error for the model (session/sandbox-host.ts),
 * and the host is started again on the same port while the sessions'
 * process goes on untouched.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { answers } from "./dev-watch";
import { sandboxHostWorker } from "./sandbox-host-worker";

export interface SandboxHostOptions {
  /** The workerd binary (wrangler's own), and the newest date it accepts. */
  workerd: string;
  compatibilityDate: string;
  /** A folder for the host's config and worker. */
  dir: string;
  /** A port nothing listens on. */
  port: number;
  /** V8 heap of each isolate, in MB (default 128, as deployed). */
  memoryMb?: number;
  /** Resident size of the whole host process, in MB (default 1 024; Linux only). */
  processMb?: number;
  /** Where the host says what happened (a crash, a restart). */
  log: (line: string) => void;
}

export interface SandboxHost {
  /** What sessions connect to (the worker's ROOST_SANDBOX_URL). */
  url: string;
  /** How many times the host was started again. */
  restarts(): number;
  stop(): void;
}

export const SANDBOX_MEMORY_MB = 128;
const PROCESS_MB = 1024;
/** How often the host is asked whether it answers, and how long it may not. */
const PULSE_MS = 1_000;
const STUCK_MS = 10_000;
/** A host that dies before it listens, this many times in a row, is given up. */
const EARLY_DEATHS = 5;

const capnpConfig = (
  port: number,
  memoryMb: number,
  compatibilityDate: string
) => `
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "host", worker = .host) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "host") ],
  v8Flags = [ "--max-old-space-size=${memoryMb}" ],
);
const host :Workerd.Worker = (
  modules = [ (name = "host.js", esModule = embed "host.js") ],
  compatibilityDate = "${compatibilityDate}",
  bindings = [ (name = "LOADER", workerLoader = ()) ],
);
`;

/** Resident memory of `pid` in MB, or undefined where /proc cannot tell. */
const residentMb = (pid: number): number | undefined => {
  try {
    const pages = Number(
      readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]
    );
    return (pages * 4096) / 2 ** 20;
  } catch {
    return undefined;
  }
};

/** Resolves once the host answers; rejects after `within` ms. */
const listening = async (url: string, within: number) => {
  const until = Date.now() + within;
  while (!(await answers(url, 500))) {
    if (Date.now() > until)
      throw new Error(`the sandbox host did not listen at ${url}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** Starts the host; resolves once it listens. */
export const startSandboxHost = async (
  options: SandboxHostOptions
): Promise<SandboxHost> => {
  const url = `http://127.0.0.1:${options.port}`;
  const memoryMb = options.memoryMb ?? SANDBOX_MEMORY_MB;
  const processMb = options.processMb ?? PROCESS_MB;
  const config = join(options.dir, "sandbox-host.capnp");
  writeFileSync(join(options.dir, "host.js"), sandboxHostWorker(memoryMb));
  writeFileSync(
    config,
    capnpConfig(options.port, memoryMb, options.compatibilityDate)
  );
  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;
  let earlyDeaths = 0;
  let watch: ReturnType<typeof setInterval> | undefined;
  let pulse: ReturnType<typeof setInterval> | undefined;

  const start = () => {
    let ready = false;
    let tail = "";
    let killedFor: string | undefined;
    const host = spawn(options.workerd, ["serve", config, "--experimental"], {
      stdio: ["ignore", "ignore", "pipe"]
    });
    child = host;
    host.stderr?.on("data", (chunk: Buffer) => {
      tail = (tail + String(chunk)).slice(-4096);
    });
    clearInterval(watch);
    watch = setInterval(() => {
      const mb = host.pid === undefined ? undefined : residentMb(host.pid);
      if (mb !== undefined && mb > processMb && killedFor === undefined) {
        killedFor = `the sandbox process passed ${processMb} MB (memory outside the JavaScript heap, such as ArrayBuffers)`;
        host.kill("SIGKILL");
      }
    }, 50);
    watch.unref();
    // One thread runs every isolate of the host: code stuck inside one
    // built-in call (a regular expression that backtracks) stops them all,
    // and no step counter sees it. A host that stops answering is ended.
    let silent = 0;
    clearInterval(pulse);
    pulse = setInterval(async () => {
      if (!ready || killedFor !== undefined) return;
      silent = (await answers(url, PULSE_MS)) ? 0 : silent + 1;
      if (silent * PULSE_MS >= STUCK_MS && killedFor === undefined) {
        killedFor = `the sandbox process stopped answering for ${STUCK_MS / 1000} s (code stuck inside one built-in call, such as a regular expression that backtracks)`;
        host.kill("SIGKILL");
      }
    }, PULSE_MS);
    pulse.unref();
    host.once("exit", (code, signal) => {
      if (stopping) return;
      const why =
        killedFor ??
        (/heap limit|out of memory/i.test(tail)
          ? `a code run passed ${memoryMb} MB of JavaScript heap`
          : `the sandbox process exited (${signal ?? `code ${code}`})${tail.trim() ? `: ${tail.trim().split("\n").slice(-3).join(" | ")}` : ""}`);
      earlyDeaths = ready ? 0 : earlyDeaths + 1;
      if (earlyDeaths >= EARLY_DEATHS) {
        options.log(
          `Roost: ${why}; the sandbox host died ${EARLY_DEATHS} times before it listened and is not restarted: code tools fail until the server restarts.`
        );
        return;
      }
      restarts += 1;
      options.log(
        `Roost: ${why}; the sandbox host restarts (the sessions are unaffected; the run it served fails with an error for the model).`
      );
      start().catch((error: Error) => options.log(`Roost: ${error.message}.`));
    });
    return listening(url, 15_000).then(() => {
      ready = true;
    });
  };
  await start();
  return {
    url,
    restarts: () => restarts,
    stop: () => {
      stopping = true;
      clearInterval(watch);
      clearInterval(pulse);
      child?.kill("SIGKILL");
    }
  };
};
