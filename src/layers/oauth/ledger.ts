/** @module The worker's side of OAuth's single-use ledger (object.ts): one object of the OAUTH_LEDGER namespace, by name. */

import type { RoostBindings } from "../../http/env";
import { type LayerObject, layerNamespace } from "../../http/layer";
import type { Redemption } from "./redeem-once";

/** The ledger's class, as a worker binds it. */
export const LEDGER_OBJECT: LayerObject = {
  layer: "oauth()",
  binding: "OAUTH_LEDGER",
  className: "OAuthLedger",
  module: "roost-edge/layers/oauth"
};

const LEDGER_NAME = "roost:oauth-ledger";

interface Ledger {
  redeem(
    key: string,
    family: string,
    expiresAtMs: number,
    familyUntilMs: number
  ): Promise<Redemption>;
}

/**
 * Redeems `key` (a code's or a refresh token's id) of the grant `family`:
 * `fresh` if unused until now; a second use revokes the family until
 * `familyUntilMs` (redeem-once.ts).
 */
export const redeem = (
  env: RoostBindings,
  key: string,
  family: string,
  expiresAtMs: number,
  familyUntilMs: number
): Promise<Redemption> => {
  const namespace = layerNamespace(env, LEDGER_OBJECT);
  const stub = namespace.get(
    namespace.idFromName(LEDGER_NAME)
  ) as unknown as Ledger;
  return stub.redeem(key, family, expiresAtMs, familyUntilMs);
};
