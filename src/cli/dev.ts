/** @module `roost-edge dev` (and `npm start` in a clone): a development server of the author's environments, with the inspector. */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join, relative, resolve } from "node:path";
import { type BuildGate, gateOnBuild } from "./dev-build";
import { devConfig } from "./dev-config";
import { takeListen } from "./dev-listen";
import { claimSessions, releaseSessions } from "./dev-sessions";
import { copyVarsFiles, envFilesFrom } from "./dev-vars";
import { killTree, watchWorkerd } from "./dev-watch";
import { type DevSource, devWorkerSource } from "./dev-worker";
import { waitForServer } from "./ready";
import { type SandboxHost, startSandboxHost } from "./sandbox-host";
import { startStackMapHost } from "./stack-map-host";

export interface DevOptions {
  /** The project: its wrangler.toml is the base config, and the work folder goes in its .roost/. */
  root: string;
  /**
   * Where sessions are kept (absolute), so they outlive the server; none:
   * in the server's work folder, deleted when it stops.
   */
  persistTo?: string;
  /** The base config's text (the project's wrangler.toml). */
  config: string;
  /** Environment files to serve (absolute); none: the config's `main`, as deployed. */
  files: readonly string[];
  /** Where to listen, unless `--port` / `--ip` among `wranglerArgs` say otherwise (dev-listen.ts). */
  port: number;
  ip: string;
  /** The inspector's built files. */
  assets: string;
  /** Module aliases for the generated config (a clone maps `roost-edge` to its sources). */
  aliases?: Readonly<Record<string, string>>;
  /** wrangler's bin script, run with this Node. */
  wrangler: string;
  /** More arguments for wrangler dev, e.g. `--log-level warn`. */
  wranglerArgs: readonly string[];
  /** How the user runs a rollout against the server, for the next steps. */
  rollout: string;
  /** Where paths in messages are relative to. */
  cwd: string;
}

const BANNER = "!".repeat(72);

/** Runs the server until wrangler exits; resolves to the exit code. */
export const runDev = async (given: DevOptions): Promise<number> => {
  const listen = takeListen(given.wranglerArgs, given);
  if (typeof listen === "string") {
    process.stderr.write(`${listen}\n`);
    return 1;
  }
  const options: DevOptions = {
    ...given,
    port: listen.port,
    ip: listen.ip,
    wranglerArgs: envFilesFrom(listen.rest, given.cwd)
  };
  // Listening on every address: ask the loopback one.
  const host = ["0.0.0.0", "::"].includes(options.ip)
    ? "127.0.0.1"
    : options.ip;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${options.port}`;
  // Another server on the port would answer the readiness probe below and
  // make this one say "Listening" before wrangler fails to bind.
  if (await portTaken(options.port, options.ip)) {
    process.stderr.write(
      `Port ${options.port} on ${options.ip} is in use (another dev server, perhaps). Stop that server, or pick another port: --port ${options.port + 1} (or PORT=${options.port + 1}).\n`
    );
    return 1;
  }
  const source = sourceOf(options);
  if (typeof source === "string") {
    process.stderr.write(`${source}\n`);
    return 1;
  }
  const label = labelFor(options.cwd);
  // Kept sessions are one server's at a time (dev-sessions.ts).
  const kept = options.persistTo;
  const holder = kept && claimSessions(kept, options.port);
  if (kept && holder) {
    process.stderr.write(
      `Another roost-edge dev (process ${holder.pid}, port ${holder.port}) keeps its sessions in ${label(kept)}. Stop it, or give this server other sessions: --persist-to <another folder>, or --no-persist.\n`
    );
    return 1;
  }
  // One folder per port: two servers in one project never share one, and a
  // server killed before it could clean up leaves a folder the next start
  // on its port replaces. Sessions not kept elsewhere live in it too, so
  // they go when the server stops.
  const work = join(options.root, ".roost", String(options.port));
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const sessions = kept ?? join(work, "state");
  const worker = join(work, "worker.ts");
  writeFileSync(
    worker,
    devWorkerSource(source, (path) => {
      const spec = relative(work, path).replaceAll("\\", "/");
      return spec.startsWith(".") ? spec : `./${spec}`;
    })
  );
  const config = join(work, "wrangler.toml");
  const configText = devConfig(options.config, {
    baseDir: options.root,
    main: worker,
    assets: options.assets,
    ...(options.aliases ? { aliases: options.aliases } : {})
  });
  writeFileSync(config, configText);
  // wrangler reads .dev.vars beside its config (dev-vars.ts); with
  // --env-file, those files instead.
  const copied = copyVarsFiles(options.root, work);
  const vars = options.wranglerArgs.some((a) => a.startsWith("--env-file"))
    ? []
    : copied.filter((name) => !name.endsWith(".example"));
  // Code runs in a process of its own: a run that exhausts memory ends
  // that one, not the sessions' (sandbox-host.ts).
  const sandbox = await startSandbox(options.wrangler, work);
  // Stacks the worker sends on, in the author's files (stack-map-host.ts).
  const stacks = await startStackMapHost(work);
  const cleanUp = () => {
    sandbox?.stop();
    stacks.stop();
    if (kept !== undefined) releaseSessions(kept);
    rmSync(work, { recursive: true, force: true });
  };
  process.once("exit", cleanUp);

  const served =
    source.kind === "files"
      ? source.files.map((f) => f.label).join(", ")
      : `${source.label} (or a module it imports)`;
  process.stderr.write(
    [
      BANNER,
      "!! Roost development mode (ROOST_DEV=1)",
      "!! Session tokens are signed with a FIXED DEVELOPMENT SECRET and no API",
      "!! key is required to create sessions. Never expose this server; deploy",
      "!! with ROOST_SECRETS (and ROOST_API_KEYS) set instead.",
      BANNER,
      source.kind === "files"
        ? `Serving the environments exported by ${served}.`
        : `Serving the worker ${source.label} (its environments, as deployed).`,
      kept === undefined
        ? `Sessions: temporary, in ${label(sessions)}, deleted when this server stops.`
        : `Sessions: kept in ${label(sessions)}; they outlive this server and come back with the next one (--no-persist keeps none).`,
      ...(vars.length > 0
        ? [
            `Variables: ${vars.map((name) => label(join(options.root, name))).join(", ")}, copied beside the generated config, where wrangler dev reads them; restart to change them.`
          ]
        : []),
      ""
    ].join("\n")
  );
  // wrangler picks its debugger's port from 9229 up when it starts; two
  // servers starting together can pick the same one, so pick it here.
  const inspectorPort = options.wranglerArgs.some((a) =>
    a.startsWith("--inspector-port")
  )
    ? []
    : ["--inspector-port", String(await freePort())];
  const args = [
    options.wrangler,
    "dev",
    "--config",
    config,
    "--ip",
    options.ip,
    "--port",
    String(options.port),
    "--persist-to",
    sessions,
    "--var",
    "ROOST_DEV:1",
    ...(sandbox ? ["--var", `ROOST_SANDBOX_URL:${sandbox.url}`] : []),
    "--var",
    `ROOST_STACK_MAP_URL:${stacks.url}`,
    ...inspectorPort,
    ...options.wranglerArgs
  ];
  let child: ReturnType<typeof spawn> | undefined;
  let gate: BuildGate | undefined;
  let stopped = false;
  let done!: (code: number) => void;
  const exited = new Promise<number>((resolve) => {
    done = resolve;
  });
  const stop = (code: number) => {
    stopped = true;
    cleanUp();
    done(code);
  };
  // wrangler, once the author's files build (dev-build.ts); again whenever
  // its workerd dies under it (dev-watch.ts), with the same state: the
  // sessions are where they were.
  const serve = async (again: boolean) => {
    gate = await gateOnBuild({
      wrangler: options.wrangler,
      entry: worker,
      config: configText,
      root: options.root,
      cwd: options.cwd,
      label: served,
      log: (text) => process.stderr.write(text),
      color: process.stderr.isTTY === true
    });
    if (gate !== undefined && !(await gate.built)) return;
    if (stopped) return;
    if (!again) process.stderr.write("Starting wrangler dev…\n");
    const proc = spawn(process.execPath, args, {
      stdio: "inherit",
      cwd: options.root
    });
    child = proc;
    let restarting = false;
    const watch =
      proc.pid === undefined
        ? undefined
        : watchWorkerd(proc.pid, `${url}/health`, () => {
            restarting = true;
            process.stderr.write(
              "Roost: the server's workerd process died (killed, out of memory, or a crash); restarting it. Sessions are kept: every acknowledged write is there.\n"
            );
            if (proc.pid !== undefined) killTree(proc.pid);
          });
    proc.once("exit", (code, signal) => {
      watch?.stop();
      if (restarting && !stopped) {
        void serve(true);
        return;
      }
      stop(code ?? (signal ? 130 : 0));
    });
    if (again)
      void waitForServer(`${url}/health`, { stopped: () => stopped }).then(
        () => process.stderr.write(`Roost: back, listening on ${url}\n`),
        () => {}
      );
  };
  const forward = (signal: NodeJS.Signals) => () => {
    if (stopped) return;
    // Waiting for a build: nothing runs yet.
    if (child === undefined || child.exitCode !== null) {
      gate?.stop();
      stop(130);
      return;
    }
    stopped = true;
    child.kill(signal);
  };
  process.on("SIGINT", forward("SIGINT"));
  process.on("SIGTERM", forward("SIGTERM"));
  // Ready is waited for from wrangler's start: a fix may take the author
  // any time.
  await serve(false);
  if (stopped) return exited;
  try {
    await waitForServer(`${url}/health`, { stopped: () => stopped });
    process.stderr.write(await nextSteps(url, options));
  } catch (error) {
    if (!stopped)
      process.stderr.write(
        `Roost: ${(error as Error).message}; wrangler is still starting.\n`
      );
  }
  return exited;
};

/**
 * The sandbox host over wrangler's own workerd, or undefined (said why)
 * when there is none to run: code then runs in the sessions' process.
 */
const startSandbox = async (
  wrangler: string,
  dir: string
): Promise<SandboxHost | undefined> => {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    const found = createRequire(wrangler)("workerd") as {
      default?: unknown;
      compatibilityDate?: unknown;
    };
    if (
      typeof found.default !== "string" ||
      typeof found.compatibilityDate !== "string"
    )
      throw new Error("wrangler's workerd was not found");
    return await startSandboxHost({
      workerd: found.default,
      compatibilityDate: found.compatibilityDate,
      dir,
      port: await freePort(),
      log
    });
  } catch (error) {
    log(
      `Roost: no sandbox host (${(error as Error).message}): code tools run in the server's own process, where code that exhausts memory ends the server.`
    );
    return undefined;
  }
};

/** What the generated worker imports, or why there is nothing to serve. */
const sourceOf = (options: DevOptions): DevSource | string => {
  const label = labelFor(options.cwd);
  if (options.files.length > 0) {
    const missing = options.files.filter((f) => !existsSync(f));
    if (missing.length > 0)
      return `${missing.map(label).join(", ")}: no such file.`;
    return {
      kind: "files",
      files: options.files.map((path) => ({ path, label: label(path) }))
    };
  }
  const main = /^\s*main\s*=\s*"([^"]+)"/m.exec(options.config)?.[1];
  if (!main)
    return `${label(join(options.root, "wrangler.toml"))} has no main: point it at your worker (main = "src/worker.ts"), or name environment files: roost-edge dev src/my-env.ts.`;
  const entry = resolve(options.root, main);
  if (!existsSync(entry))
    return `${label(entry)} (main in wrangler.toml): no such file.`;
  return { kind: "worker", entry, label: label(entry) };
};

/** A path as the user reads it: relative to where they are, unless that climbs out of it. */
const labelFor = (cwd: string) => (path: string) => {
  const near = relative(cwd, path);
  return near && !near.startsWith("..") ? near : path;
};

/** A port nothing listens on now. */
const freePort = () =>
  new Promise<number>((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address
          ? done(address.port)
          : fail(new Error("no free port"))
      );
    });
  });

const portTaken = (port: number, ip: string) =>
  new Promise<boolean>((done) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) =>
      done(error.code === "EADDRINUSE")
    );
    probe.listen(port, ip, () => probe.close(() => done(false)));
  });

/** "Listening", then what to do next: or, if the author's modules failed to load, that. */
const nextSteps = async (url: string, options: DevOptions) => {
  const response = await fetch(`${url}/v1/environments`);
  const body = (await response.json()) as {
    environments?: { name: string }[];
    error?: { message: string };
  };
  const lines = [
    "",
    `Listening on ${url}`,
    `Inspector: open ${url}/ in a browser.`
  ];
  if (!body.environments)
    return [
      ...lines,
      "",
      `Not serving yet: ${body.error?.message ?? `status ${response.status}`}`,
      ""
    ].join("\n");
  const names = body.environments.map((e) => e.name);
  // The chat app is built for the catalog example's tools: offered only
  // where that environment is served (the clone's examples).
  const chat =
    names.includes("catalog") &&
    existsSync(join(options.assets, "chat", "index.html"));
  const first = names[0] ?? "<name>";
  return [
    ...lines,
    ...(chat
      ? [`Chat example (catalog): open ${url}/chat/ in a browser.`]
      : []),
    `Environments: ${names.join(", ")}`,
    "",
    "Next, in a second terminal:",
    `  curl -s ${url}/v1/environments`,
    `  curl -s -X POST ${url}/v1/sessions -H 'content-type: application/json' -d '{"environment":"${first}"}'`,
    `  ${options.rollout.replaceAll("<url>", url).replaceAll("<env>", first)}`,
    ""
  ].join("\n");
};
