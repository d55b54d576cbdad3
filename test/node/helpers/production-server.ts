/**
 * @module A `wrangler dev` of the end-to-end worker configured as a
 * deployment is: no ROOST_DEV, its own random ROOST_SECRETS (two kids, the
 * first signing) and one random API key. The shared server of
 * global-setup.ts runs in development mode, so the production checks
 * start this one beside it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../../scripts/free-port.mjs";
import { waitUntilReady } from "../../../scripts/ready.mjs";

export interface ProductionServer {
  baseUrl: string;
  /** The one key ROOST_API_KEYS lists. */
  apiKey: string;
  /** Everything wrangler dev printed so far (the worker's console included). */
  output(): string;
  stop(): Promise<void>;
}

// base64url: neither ":" nor "," (the settings' separators) can occur.
const random = () => randomBytes(32).toString("base64url");

export const startProductionServer = async (): Promise<ProductionServer> => {
  const port = await freePort();
  const apiKey = random();
  const stateDir = mkdtempSync(join(tmpdir(), "roost-production-"));
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
      join(stateDir, "state"),
      "--var",
      `ROOST_SECRETS:k1:${random()},k0:${random()}`,
      "--var",
      `ROOST_API_KEYS:${apiKey}`,
      "--log-level",
      "warn",
      // The shared server and any other wrangler dev hold the default 9229.
      "--inspector-port",
      String(await freePort())
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
    rmSync(stateDir, { recursive: true, force: true });
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
  return { baseUrl, apiKey, output: () => output, stop };
};
