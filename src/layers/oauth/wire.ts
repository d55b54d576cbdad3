/**
 * @module How OAuth's endpoints answer. Their errors are RFC 6749's
 * `{error, error_description}` (400, or 401 for an unknown client), not
 * Roost's `{error:{code,message}}`: OAuth clients read only that shape.
 * A form body is read here too, with the same size cap as everywhere.
 */

import type { Context } from "hono";
import { RoostError } from "../../errors";
import { readCapped } from "../../http/body";
import type { AppEnv } from "../../http/env";

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export const oauthJson = (body: unknown, status = 200): Response =>
  Response.json(body, { status, headers: NO_STORE });

export const oauthError = (
  error: string,
  description: string,
  status: 400 | 401 = 400
): Response => oauthJson({ error, error_description: description }, status);

const FORM_MAX_BYTES = 32 * 1024;

/**
 * An `application/x-www-form-urlencoded` body as one value per name, or the
 * error to answer: another media type, too large, or a name sent twice
 * (RFC 6749 §3.1: a parameter may not repeat).
 */
export const readForm = async (
  c: Context<AppEnv>
): Promise<Record<string, string> | Response> => {
  const type = c.req
    .header("Content-Type")
    ?.split(";")[0]
    ?.trim()
    .toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    return oauthError(
      "invalid_request",
      "Send the body as application/x-www-form-urlencoded."
    );
  let raw: string;
  try {
    raw = await readCapped(c.req.raw, FORM_MAX_BYTES);
  } catch (error) {
    if (error instanceof RoostError)
      return oauthError("invalid_request", error.message);
    throw error;
  }
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    if (Object.hasOwn(form, name))
      return oauthError("invalid_request", `${name} is sent more than once.`);
    form[name] = value;
  }
  return form;
};

/** The first problem zod found, as one sentence. */
export const firstIssue = (error: {
  issues: readonly { path: PropertyKey[]; message: string }[];
}): string => {
  const issue = error.issues[0];
  if (issue === undefined) return "The request is malformed.";
  const at = issue.path.map(String).join(".");
  return at === "" ? issue.message : `${at}: ${issue.message}`;
};

/** Where an authorization answer goes: the redirect URI with `params` (and RFC 9207's `iss`) added. */
export const redirectBack = (
  redirectUri: string,
  params: Record<string, string | undefined>
): Response => {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return new Response(null, {
    status: 303,
    headers: { Location: url.href, ...NO_STORE }
  });
};
