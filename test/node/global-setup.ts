/**
 * Starts one `wrangler dev` for every end-to-end test file, on free ports
 * (from ROOST_TEST_PORTS' range when set; ROOST_E2E_PORT and
 * ROOST_INSPECTOR_PORT pin them) with a throwaway state folder, and hands
 * its URL and its log to the tests.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestProject } from "vitest/node";
import {
  E2E_MODEL_API_KEY,
  type FakeOpenAI,
  startFakeOpenAI
} from "./fake-openai";
import { e2eInspectorPort, e2ePort } from "./helpers/e2e-port";
import { type E2eServer, startE2eServer } from "./helpers/e2e-server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    /** The fake OpenAI-compatible server, without `/v1`; wrangler dev's `openai` model points at it. */
    fakeOpenAIUrl: string;
    /** A file holding everything wrangler dev printed (the worker's console included), appended as it comes. */
    devLogPath: string;
    /** wrangler dev's inspector port, for the heap of the worker's isolate. */
    inspectorPort: number;
  }
}

let server: E2eServer | undefined;
let fake: FakeOpenAI | undefined;

export default async function setup(project: TestProject) {
  // Chosen before anything starts, so a pinned port that is taken stops
  // the run with nothing left behind.
  const port = await e2ePort();
  const inspectorPort = await e2eInspectorPort();
  // Started before wrangler, so the worker's `openai` model can be pointed at it.
  fake = await startFakeOpenAI();
  project.provide("fakeOpenAIUrl", fake.url);
  const devLog = join(
    mkdtempSync(join(tmpdir(), "roost-e2e-log-")),
    "wrangler-dev.log"
  );
  writeFileSync(devLog, "");
  server = await startE2eServer({
    port,
    inspectorPort,
    vars: {
      ROOST_DEV: "1",
      ROOST_MODEL_BASE_URL: `${fake.url}/v1`,
      ROOST_MODEL: "fake-model",
      // The model gateway asks for token ids on the harness's behalf.
      ROOST_MODEL_TOKEN_IDS: "1",
      // Sent to the fake only: judge-e2e.test.ts looks for it everywhere else.
      ROOST_MODEL_API_KEY: E2E_MODEL_API_KEY
    },
    onOutput: (text) => appendFileSync(devLog, text)
  });
  project.provide("baseUrl", server.baseUrl);
  project.provide("inspectorPort", server.inspectorPort);
  project.provide("devLogPath", devLog);
  return async () => {
    await server?.stop();
    rmSync(dirname(devLog), { recursive: true, force: true });
    await fake?.close();
  };
}
