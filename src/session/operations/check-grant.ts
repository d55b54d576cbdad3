/**
 * @module The one access check: whether a credential's grant admits an
 * operation. The worker proved the token genuine and unexpired before it
 * called; the session adds what only it knows (a revocation) and what time
 * changes (an expiry reached while a socket stayed open).
 */

import { RoostError } from "../../errors";
import { allows, type Grant, type Scope } from "../../protocol/scopes";
import type { SessionShared } from "../shared";
import type { AgentUse } from "./define";

/** Whether `grant` is no longer good: expired, or revoked by the session. */
export const staleGrant = (
  shared: SessionShared,
  grant: Grant
): "expired" | "revoked" | undefined => {
  if (grant.expiresAt !== undefined && grant.expiresAt * 1000 <= shared.now())
    return "expired";
  if (grant.apiKey) return undefined;
  const cutoff = shared.revocations()[grant.scope];
  return cutoff !== undefined && grant.issuedAt < cutoff
    ? "revoked"
    : undefined;
};

export const staleError = (why: "expired" | "revoked"): RoostError =>
  new RoostError(
    "unauthorized",
    why === "expired"
      ? "This token has expired; ask whoever gave it to you for a new one."
      : "This token was revoked; ask whoever gave it to you for a new one."
  );

export const checkGrant = (
  shared: SessionShared,
  name: string,
  need: Scope,
  grant: Grant,
  agentUse?: AgentUse
): void => {
  const stale = staleGrant(shared, grant);
  if (stale !== undefined) throw staleError(stale);
  if (!allows(grant.scope, need))
    throw new RoostError(
      "forbidden",
      `This credential's scope "${grant.scope}" does not allow ${name}; it needs "${need}".`,
      { scope: need, granted: grant.scope }
    );
  if (grant.agent !== undefined && agentUse === undefined)
    throw new RoostError(
      "forbidden",
      `This credential is agent ${grant.agent}'s: it steps as ${grant.agent} and reads ${grant.agent}'s view, not ${name}.`,
      { agent: grant.agent }
    );
};

/**
 * A step's input for `grant`: an agent's credential steps as its agent,
 * and is refused, changing nothing, when it names another.
 */
export const asGrantedAgent = <I extends { agent?: string | undefined }>(
  grant: Grant,
  input: I
): I => {
  const named = input.agent;
  if (grant.agent === undefined) return input;
  if (named !== undefined && named !== grant.agent)
    throw new RoostError(
      "forbidden",
      `This credential is agent ${grant.agent}'s; it cannot step as ${named}.`,
      { agent: named, granted: grant.agent }
    );
  return { ...input, agent: grant.agent };
};
