/**
 * @module How the worker hands a credential's grant to the object with a
 * forwarded request (a socket upgrade, a chat stream): a header the worker
 * always sets itself, over whatever the client sent under that name.
 */

import { type Grant, isScope } from "../protocol/scopes";

const GRANT_HEADER = "X-Roost-Grant";

/** `request` with `grant` attached, replacing any client-sent value. */
export const withGrant = (request: Request, grant: Grant): Request => {
  const headers = new Headers(request.headers);
  headers.set(GRANT_HEADER, JSON.stringify(grant));
  return new Request(request, { headers });
};

/** The grant the worker attached; `undefined` if none (nothing but the worker calls the object). */
export const grantOf = (request: Request): Grant | undefined => {
  const text = request.headers.get(GRANT_HEADER);
  if (text === null) return undefined;
  try {
    const g = JSON.parse(text) as Partial<Grant>;
    if (typeof g.scope !== "string" || !isScope(g.scope)) return undefined;
    if (typeof g.issuedAt !== "number") return undefined;
    return {
      scope: g.scope,
      issuedAt: g.issuedAt,
      ...(typeof g.expiresAt === "number" ? { expiresAt: g.expiresAt } : {}),
      ...(g.apiKey === true ? { apiKey: true } : {}),
      ...(typeof g.agent === "string" ? { agent: g.agent } : {})
    };
  } catch {
    return undefined;
  }
};
