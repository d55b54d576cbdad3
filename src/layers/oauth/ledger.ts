/** @module The worker's side of OAuth's single-use ledger (object.ts): one object of the OAUTH_LEDGER namespace, by name. */

import { RoostError } from "../../errors";
import type { RoostBindings } from "../../http/env";

/** The binding the worker reaches the ledger by. */
export const LEDGER_BINDING = "OAUTH_LEDGER";

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
  const namespace = (env as unknown as Record<string, unknown>)[
    LEDGER_BINDING
  ] as DurableObjectNamespace | undefined;
  if (namespace === undefined)
    throw new RoostError(
      "unavailable",
      `oauth() needs the Durable Object binding ${LEDGER_BINDING}: export OAuthLedger from your worker (export { OAuthLedger } from "roost-edge/layers/oauth") and add to wrangler.toml [[durable_objects.bindings]] name = "${LEDGER_BINDING}", class_name = "OAuthLedger", with a migration's new_sqlite_classes = ["OAuthLedger"].`
    );
  const stub = namespace.get(
    namespace.idFromName(LEDGER_NAME)
  ) as unknown as Ledger;
  return stub.redeemOnce(key, expiresAtMs);
};
