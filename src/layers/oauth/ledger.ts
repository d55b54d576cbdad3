/** @module The worker's side of OAuth's single-use ledger (session/redeem-once.ts): one object of the session namespace, by name. */

import type { RoostBindings } from "../../http/env";

// Not a session: no session id is a name's id, and its storage holds only
// the ledger's table.
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
  const namespace = env.SESSIONS;
  const stub = namespace.get(
    namespace.idFromName(LEDGER_NAME)
  ) as unknown as Ledger;
  return stub.redeemOnce(key, expiresAtMs);
};
