/**
 * @module `npm start` as a user runs it, in its own process group: with
 * arguments on given ports (`spawnNpmStart`), or plain on free ports,
 * waited for (`npmStart`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { testPort } from "./test-port";

const root = new URL("../../..", import.meta.url).pathname;
const noVars = new URL("./no-vars.env", import.meta.url).pathname;

/**
 * `npm start` with these arguments on `port`, its wrangler's debugger on
 * `inspectorPort` (else one the dev server picks itself): `listening` once
 * it says so. The clone's `.dev.vars` (or `.env`) is read only with
 * `projectVars`: a developer's own model or keys must not reach the
 * servers tests start, so an empty variables file stands in for it.
 */
export const spawnNpmStart = (
  args: string[],
  port: number,
  inspectorPort?: number,
  { projectVars = false }: { projectVars?: boolean } = {}
) => {
  const inspector =
    inspectorPort === undefined
      ? []
      : ["--inspector-port", String(inspectorPort)];
  const vars =
    projectVars || args.some((a) => a.startsWith("--env-file"))
      ? []
      : ["--env-file", noVars];
  const child = spawn(
    process.execPath,
    ["scripts/start.mjs", ...args, ...inspector, ...vars],
    {
      cwd: root,
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
    child.stdout!.on("data", seen);
    child.stderr!.on("data", seen);
    child.once("exit", () => reject(new Error(`exited:\n${output}`)));
  });
  return { child, listening, output: () => output };
};

/** A JSON POST to a server under test, with a session token if given: its status and JSON body. */
export const postJson = async <T = Record<string, unknown>>(
  url: string,
  body: unknown,
  token?: string
): Promise<{ status: number; body: T }> => {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {})
    },
    body: JSON.stringify(body)
  });
  return { status: res.status, body: (await res.json()) as T };
};

/** SIGTERM to the server's process group; resolves once it exited. */
export const stopNpmStart = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (
      child.pid === undefined ||
      child.exitCode !== null ||
      child.signalCode !== null
    )
      return resolve();
    child.once("exit", () => resolve());
    process.kill(-child.pid, "SIGTERM");
  });

export interface NpmStart {
  base: string;
  /** npm start's own process (scripts/start.mjs): wrangler and workerd are under it. */
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

/** Plain `npm start` on free ports, listening. */
export const npmStart = async (): Promise<NpmStart> => {
  const port = await testPort();
  const { child, listening, output } = spawnNpmStart(
    [],
    port,
    await testPort()
  );
  await listening;
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    output,
    stop: () => stopNpmStart(child)
  };
};
