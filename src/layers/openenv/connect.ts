/**
 * @module OpenEnv connect credentials. OpenEnv's client takes only a base
 * URL and sends no headers, so its credential rides in the URL's path:
 * scoped to one environment, expiring, and signed with ROOST_SECRETS like
 * session tokens (rotating the secrets revokes every one).
 */

import type { SigningKeys } from "../../http/secrets";
import { signToken, verifyToken } from "../../http/token";

export interface ConnectGrant {
  environment: string;
  /** Seconds since the epoch. */
  expiresAt: number;
  /** Sessions outlive their socket (for re-attaching) instead of being deleted with it. */
  keep: boolean;
}

// A domain of its own: a session token signs a bare 64-hex id, so neither
// kind of credential can pass for the other.
const signed = (g: ConnectGrant): string =>
  `openenv:${g.environment}:${g.expiresAt}:${g.keep ? 1 : 0}`;

export const signConnect = async (
  keys: SigningKeys,
  grant: ConnectGrant
): Promise<string> =>
  `${grant.expiresAt}.${grant.keep ? 1 : 0}.${await signToken(keys, signed(grant))}`;

/** The grant a path credential carries for `environment`, if it is genuine and unexpired. */
export const verifyConnect = async (
  keys: SigningKeys,
  environment: string,
  credential: string,
  nowSeconds: number
): Promise<ConnectGrant | undefined> => {
  const match =
    /^(\d{1,12})\.([01])\.(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(
      credential
    );
  if (match === null) return undefined;
  const grant: ConnectGrant = {
    environment,
    expiresAt: Number(match[1]),
    keep: match[2] === "1"
  };
  if (grant.expiresAt <= nowSeconds) return undefined;
  return (await verifyToken(keys, signed(grant), match[3]!))
    ? grant
    : undefined;
};
