/**
 * @module A `wrangler dev` of the end-to-end worker configured as a
 * deployment is: no ROOST_DEV, its own random ROOST_SECRETS (two kids, the
 * first signing) and one random API key. The shared server of
 * global-setup.ts runs in development mode, so the production checks
 * start this one beside it.
 */
import { randomBytes } from "node:crypto";
import { freePort } from "../../../scripts/free-port.mjs";
import { type E2eServer, startE2eServer } from "./e2e-server";

export interface ProductionServer extends E2eServer {
  /** The one key ROOST_API_KEYS lists. */
  apiKey: string;
}

// base64url: neither ":" nor "," (the settings' separators) can occur.
const random = () => randomBytes(32).toString("base64url");

export const startProductionServer = async (): Promise<ProductionServer> => {
  const apiKey = random();
  const server = await startE2eServer({
    port: await freePort(),
    vars: {
      ROOST_SECRETS: `k1:${random()},k0:${random()}`,
      ROOST_API_KEYS: apiKey
    }
  });
  return { ...server, apiKey };
};
