/** @module The worker's side of OAuth's single-use ledger (object.ts): one object of the OAUTH_LEDGER namespace, by name. */

import type { RoostBindings } from "../../http/env";
import { type LayerObject, layerNamespace } from "../../http/layer";

/** The ledger's class, as a worker binds it. */
export const LEDGER_OBJECT: LayerObject = {
  layer: "oauth()",
  binding: "OAUTH_LEDGER",
  className: "OAuthLedger",
  module: "roost-edge/layers/oauth"
};

const LEDGER_NAME = "roost:oauth-ledger";

interface Ledger {
  redeemOnce(key: string, expiresAtMs: number): Promise<boolean>;
}

/** Whether `key` (a code's or a refresh token's id) was unused until now. */
export const redeem = (
  env: RoostBindings,
  key: string,
  expiresAtMs: number
): Promise<boolean> => {
  const namespace = layerNamespace(env, LEDGER_OBJECT);
  const stub = namespace.get(
    namespace.idFromName(LEDGER_NAME)
  ) as unknown as Ledger;
  return stub.redeemOnce(key, expiresAtMs);
};
