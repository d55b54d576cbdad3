/**
 * @module `npm run dev` in the author's project, as they run it: its output
 * read as it comes, requests to it, and a stop with Ctrl-C. Every server
 * started is stopped by `stopAll`, also when a test failed early.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { testPort } from "../node/helpers/test-port";

export interface DevServer {
  port: number;
  base: string;
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /**
   * Resolves once the output has `text` (after its first `from`
   * characters: what came after a change); rejects if the server exits first.
   */
  until(text: string | RegExp, from?: number): Promise<void>;
  /** Ctrl-C, as a user stops it; resolves once it (and wrangler, workerd) exited. */
  stop(): Promise<void>;
}

const running = new Set<DevServer>();

const alive = (child: ChildProcess) =>
  child.exitCode === null && child.signalCode === null;

export const startDev = async (
  project: string,
  env: NodeJS.ProcessEnv,
  args: string[] = []
): Promise<DevServer> => {
  const port = await testPort();
  // What follows the second -- is wrangler dev's: its debugger's port.
  const debuggerPort = ["--", "--inspector-port", String(await testPort())];
  const child = spawn(
    "npm",
    ["run", "dev", "--", "--port", String(port), ...args, ...debuggerPort],
    {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: a stop reaches wrangler and workerd too.
      detached: true,
      env
    }
  );
  let output = "";
  const seen = (d: Buffer) => {
    output += String(d);
  };
  child.stdout!.on("data", seen);
  child.stderr!.on("data", seen);
  const server: DevServer = {
    port,
    base: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    until: (text, from = 0) =>
      new Promise<void>((resolve, reject) => {
        const has = () => {
          const since = output.slice(from);
          return typeof text === "string"
            ? since.includes(text)
            : text.test(since);
        };
        const check = () => {
          if (!has()) return;
          done();
          resolve();
        };
        const exited = () => {
          done();
          reject(new Error(`npm run dev exited:\n${output}`));
        };
        const done = () => {
          child.stdout!.off("data", check);
          child.stderr!.off("data", check);
          child.off("exit", exited);
        };
        child.stdout!.on("data", check);
        child.stderr!.on("data", check);
        child.once("exit", exited);
        check();
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        running.delete(server);
        if (!alive(child)) return resolve();
        child.once("exit", () => resolve());
        process.kill(-child.pid!, "SIGINT");
      })
  };
  running.add(server);
  return server;
};

/** Stops what a failed test left running: the whole process group. */
export const stopAll = () => {
  for (const server of running) {
    const { child } = server;
    if (child.pid !== undefined && alive(child))
      process.kill(-child.pid, "SIGTERM");
  }
  running.clear();
};

/** JSON over HTTP to the server at `base`, with a session's token. */
export const requests = (base: string) => {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    token?: string
  ) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(token ? { authorization: `Bearer ${token}` } : {})
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    });
    return {
      status: res.status,
      body: (await res.json()) as Record<string, unknown> & {
        error?: { code: string; message: string };
      }
    };
  };
  return {
    get: (path: string, token?: string) => call("GET", path, undefined, token),
    post: (path: string, body: unknown, token?: string) =>
      call("POST", path, body, token)
  };
};
