/**
 * @module A `wrangler dev` of the end-to-end worker configured as a
 * deployment is: no ROOST_DEV, its own random ROOST_SECRETS (two kids, the
 * first signing) and one random API key. The shared server of
 * global-setup.ts runs in development mode, so the production checks
 * start this one beside it.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { type E2eServer, startE2eServer } from "./e2e-server";
import { scopedHttp } from "./scoped-http";

export interface ProductionServer extends E2eServer {
  /** The one key ROOST_API_KEYS lists. */
  apiKey: string;
}

// base64url: neither ":" nor "," (the settings' separators) can occur.
const random = () => randomBytes(32).toString("base64url");

/** Started on free ports; `vars` adds settings (ROOST_OAUTH, say). */
export const startProductionServer = async (
  options: { apiKey?: string; vars?: Record<string, string> } = {}
): Promise<ProductionServer> => {
  const apiKey = options.apiKey ?? random();
  const server = await startE2eServer({
    vars: {
      ROOST_SECRETS: `k1:${random()},k0:${random()}`,
      ROOST_API_KEYS: apiKey,
      ...options.vars
    }
  });
  return { ...server, apiKey };
};

/** A test file's production server, and how its tests reach it. */
export interface ProductionFixture {
  /** Set once the file's tests run. */
  readonly server: ProductionServer;
  /** Requests to it with a credential of the test's choosing. */
  readonly http: ReturnType<typeof scopedHttp>;
  /** Its API key, known before it starts. */
  readonly key: string;
}

/**
 * The calling file's production server: started before its tests
 * (beforeAll), stopped after them (afterAll).
 */
export const withProductionServer = (
  vars: Record<string, string> = {}
): ProductionFixture => {
  const key = random();
  let server: ProductionServer | undefined;
  beforeAll(async () => {
    server = await startProductionServer({ apiKey: key, vars });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const started = () => {
    if (!server) throw new Error("the production server is not started yet");
    return server;
  };
  return {
    get server() {
      return started();
    },
    http: scopedHttp(() => started().baseUrl),
    key
  };
};
