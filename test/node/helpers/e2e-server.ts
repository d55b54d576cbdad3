/**
 * @module A `wrangler dev` of the end-to-end worker (Roost's worker plus an
 * abort route, test/e2e-worker/), on loopback with a throwaway state folder
 * and its own process group: the shared development server of
 * global-setup.ts and the production one scoped credentials are tested on.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntilReady } from "../../../scripts/ready.mjs";
import { testPort } from "./test-port";

export interface E2eServer {
  baseUrl: string;
  /** Its state folder, removed by `stop`. */
  dir: string;
  /** wrangler dev's inspector (the worker's isolate, over the DevTools protocol). */
  inspectorPort: number;
  /** Everything wrangler dev printed so far (the worker's console included). */
  output(): string;
  stop(): Promise<void>;
}

export const startE2eServer = async (options: {
  /** Its HTTP port; a free one (test-port.ts) when not given. */
  port?: number;
  /** wrangler dev's `--inspector-port`; a free one when not given. */
  inspectorPort?: number;
  /** `--var`s: the mode and its secrets are the caller's. */
  vars: Record<string, string>;
  /** Sees each chunk of output as it comes (a log file, say). */
  onOutput?: (text: string) => void;
}): Promise<E2eServer> => {
  const dir = mkdtempSync(join(tmpdir(), "roost-e2e-"));
  const port = options.port ?? (await testPort());
  const inspectorPort = options.inspectorPort ?? (await testPort());
  const child: ChildProcess = spawn(
    join(process.cwd(), "node_modules", ".bin", "wrangler"),
    [
      "dev",
      "--config",
      join("test", "e2e-worker", "wrangler.toml"),
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      join(dir, "state"),
      ...Object.entries(options.vars).flatMap(([k, v]) => [
        "--var",
        `${k}:${v}`
      ]),
      "--log-level",
      "warn",
      // wrangler's default debugger port (9229, then up) is taken by
      // whichever wrangler dev started first on this machine.
      "--inspector-port",
      String(inspectorPort)
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so stop() ends wrangler and workerd together.
      detached: true,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" }
    }
  );
  let output = "";
  const keep = (d: unknown) => {
    output += String(d);
    options.onOutput?.(String(d));
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);

  const stop = async () => {
    const pid = child.pid;
    if (pid !== undefined && child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(-pid, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) process.kill(-pid, "SIGKILL");
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
    rmSync(dir, { recursive: true, force: true });
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${baseUrl}/health`, {
      timeoutMs: 90_000,
      stopped: () => child.exitCode !== null
    });
  } catch (error) {
    await stop();
    throw new Error(`wrangler dev: ${(error as Error).message}\n${output}`);
  }
  return { baseUrl, dir, inspectorPort, output: () => output, stop };
};
