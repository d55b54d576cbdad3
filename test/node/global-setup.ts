/**
 * Starts one `wrangler dev` for every end-to-end test file, on a free port
 * (or the one ROOST_E2E_PORT pins) with a throwaway state folder, and hands
 * its URL and its log to the tests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { freePort } from "../../scripts/free-port.mjs";
import { waitUntilReady } from "../../scripts/ready.mjs";
import { type FakeOpenAI, startFakeOpenAI } from "./fake-openai";
import { e2ePort } from "./helpers/e2e-port";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    /** The fake OpenAI-compatible server, without `/v1`; wrangler dev's `openai` model points at it. */
    fakeOpenAIUrl: string;
    /** A file holding everything wrangler dev printed (the worker's console included), appended as it comes. */
    devLogPath: string;
  }
}

let child: ChildProcess | undefined;
let fake: FakeOpenAI | undefined;
let stateDir: string | undefined;

export default async function setup(project: TestProject) {
  // Chosen before anything starts, so a pinned port that is taken stops
  // the run with nothing left behind.
  const port = await e2ePort();
  // Started before wrangler, so the worker's `openai` model can be pointed at it.
  fake = await startFakeOpenAI();
  project.provide("fakeOpenAIUrl", fake.url);
  stateDir = mkdtempSync(join(tmpdir(), "roost-e2e-"));
  const devLog = join(stateDir, "wrangler-dev.log");
  writeFileSync(devLog, "");
  const bin = join(process.cwd(), "node_modules", ".bin", "wrangler");
  child = spawn(
    bin,
    [
      "dev",
      // Roost's worker plus an abort route (test/e2e-worker/worker.ts).
      "--config",
      join("test", "e2e-worker", "wrangler.toml"),
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      join(stateDir, "state"),
      "--var",
      "ROOST_DEV:1",
      "--var",
      `ROOST_MODEL_BASE_URL:${fake.url}/v1`,
      "--var",
      "ROOST_MODEL:fake-model",
      "--log-level",
      "warn",
      // wrangler's default debugger port (9229, then up) is taken by
      // whichever wrangler dev started first on this machine.
      "--inspector-port",
      String(await freePort())
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so teardown can stop wrangler and workerd together.
      detached: true,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" }
    }
  );
  let output = "";
  const keep = (d: unknown) => {
    output += String(d);
    appendFileSync(devLog, String(d));
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${baseUrl}/health`, {
      timeoutMs: 90_000,
      stopped: () => child?.exitCode !== null
    });
  } catch (error) {
    throw new Error(`wrangler dev: ${(error as Error).message}\n${output}`);
  }
  project.provide("baseUrl", baseUrl);
  project.provide("devLogPath", devLog);
  return teardown;
}

async function teardown() {
  const pid = child?.pid;
  if (child && pid !== undefined && child.exitCode === null) {
    const exited = new Promise((r) => child?.once("exit", r));
    process.kill(-pid, "SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null) process.kill(-pid, "SIGKILL");
  }
  child?.stdout?.destroy();
  child?.stderr?.destroy();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  await fake?.close();
}
