/** @module Token signing keys from ROOST_SECRETS, the development fallback, and failing closed without them. */

import { RoostError } from "../errors";
import { isDev, listSetting, type RoostBindings } from "./env";

export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

/** The first key signs; every key verifies. */
export interface SigningKeys {
  signer: SigningKey;
  byKid: ReadonlyMap<string, CryptoKey>;
}

/**
 * Used only when ROOST_DEV=1 and ROOST_SECRETS is unset. It is public, so a
 * token signed with it proves nothing: never deploy with ROOST_DEV=1.
 */
export const DEV_SECRET = "roost-development-secret-not-for-production";
export const DEV_KID = "dev";

// A kid travels inside the dotted token, so it may not contain a dot.
const KID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

// Importing a key is async work per request otherwise; secrets change only
// with a deploy, so one entry per distinct setting is enough. Only settled
// keys are kept: a pending import belongs to the request that started it,
// and a request that waited on another's would hang if that one were cancelled.
const cache = new Map<string, SigningKeys>();
let warnedDev = false;

const importKey = (secret: string): Promise<CryptoKey> =>
  crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"]
  );

const misconfigured = (message: string): RoostError =>
  new RoostError("unavailable", message);

const parseSecrets = (setting: string): [string, string][] => {
  const pairs = listSetting(setting).map((item): [string, string] => {
    const colon = item.indexOf(":");
    const kid = item.slice(0, colon);
    const secret = item.slice(colon + 1);
    if (colon < 0 || !KID_PATTERN.test(kid) || secret === "") {
      throw misconfigured(
        "ROOST_SECRETS is malformed: set it to kid:secret pairs separated by commas (kid of letters, digits, _ or -)."
      );
    }
    return [kid, secret];
  });
  if (pairs.length === 0) {
    throw misconfigured("ROOST_SECRETS is empty: set at least one kid:secret.");
  }
  return pairs;
};

const load = async (pairs: [string, string][]): Promise<SigningKeys> => {
  const keys = await Promise.all(
    pairs.map(async ([kid, secret]) => ({ kid, key: await importKey(secret) }))
  );
  const byKid = new Map<string, CryptoKey>();
  // The first listing of a kid wins, as it does for signing.
  for (const { kid, key } of keys) if (!byKid.has(kid)) byKid.set(kid, key);
  return { signer: keys[0]!, byKid };
};

/**
 * The signing keys of this deployment. Throws `unavailable` (503) when no
 * secret is configured and ROOST_DEV is not "1": a Worker cannot tell
 * development from production, so it fails closed.
 */
export const signingKeys = (env: RoostBindings): Promise<SigningKeys> => {
  let setting = env.ROOST_SECRETS?.trim() ?? "";
  if (setting === "") {
    if (!isDev(env)) {
      throw misconfigured(
        "Session routes are disabled: set the ROOST_SECRETS secret (kid:secret, comma-separated), or ROOST_DEV=1 for local development only."
      );
    }
    if (!warnedDev) {
      warnedDev = true;
      console.warn(
        "Roost: ROOST_DEV=1 and no ROOST_SECRETS: session tokens are signed with the fixed DEVELOPMENT secret. Never deploy like this."
      );
    }
    setting = `${DEV_KID}:${DEV_SECRET}`;
  }
  const cached = cache.get(setting);
  if (cached !== undefined) return Promise.resolve(cached);
  const pairs = parseSecrets(setting);
  return load(pairs).then((keys) => {
    cache.set(setting, keys);
    return keys;
  });
};
