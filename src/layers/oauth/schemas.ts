/** @module What OAuth's endpoints accept (zod), and the sealed values they hand out and take back. */

import * as z from "zod";
import { lazy } from "../../lazy";

const text = (max: number) => z.string().min(1).max(max);

/** RFC 7591 client metadata: what Roost reads of it; the rest is ignored. */
export const RegistrationSchema = lazy(() =>
  z.looseObject({
    redirect_uris: z.array(text(2000)).min(1).max(10),
    client_name: z.string().max(200).optional(),
    token_endpoint_auth_method: z.string().max(100).optional(),
    grant_types: z.array(z.string().max(100)).max(10).optional(),
    response_types: z.array(z.string().max(100)).max(10).optional()
  })
);

/** A registered client, sealed into its client_id: its id, redirect URIs and name. */
export const ClientSchema = lazy(() =>
  z.object({
    i: z.string(),
    r: z.array(z.string()).min(1),
    n: z.string().optional()
  })
);
export type Client = z.infer<ReturnType<typeof ClientSchema>>;

/** The part of an authorization request that says where errors may be sent. */
export const ClientPartSchema = lazy(() =>
  z.object({ client_id: text(8192), redirect_uri: text(2000) })
);

/** An authorization request once its client and redirect URI are known good. */
export const AuthorizeSchema = lazy(() =>
  z.object({
    response_type: z.literal("code", {
      error: "response_type must be code."
    }),
    code_challenge: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, "code_challenge must be a S256 challenge."),
    code_challenge_method: z.literal("S256", {
      error: "code_challenge_method must be S256 (PKCE with plain is refused)."
    }),
    resource: text(2000),
    state: z.string().max(2000).optional(),
    scope: z.string().max(200).optional()
  })
);

/** An approved request, sealed into the consent form (with the cookie's nonce) and then into the code. */
export const PendingSchema = lazy(() =>
  z.object({
    /** The client's id (`Client.i`). */
    i: z.string(),
    /** redirect_uri, challenge, resource, state. */
    u: z.string(),
    h: z.string(),
    r: z.string(),
    s: z.string().optional(),
    /** The client's name, as it registered it. */
    n: z.string().optional(),
    /** The consent form's nonce (its cookie), or a code's id. */
    j: z.string(),
    /** Expiry, seconds since the epoch. */
    x: z.number()
  })
);
export type Pending = z.infer<ReturnType<typeof PendingSchema>>;

/** What an approval granted, sealed into codes and refresh tokens alike. */
export const ApprovedSchema = lazy(() =>
  z.object({
    i: z.string(),
    r: z.string(),
    /** When it was approved, ms: every access token of the chain carries it. */
    a: z.number(),
    /** The latest any token of the chain may expire, seconds (the approving session token's expiry), or 0. */
    k: z.number(),
    /** A digest of the API key that approved it, which must stay listed. */
    d: z.string().optional(),
    /** This code's or refresh token's own id, used once. */
    j: z.string(),
    /**
     * A refresh token's grant: the id of the code the chain began with
     * (a code's grant is its own id). A second use of any of its codes or
     * refresh tokens revokes them all. Absent from refresh tokens issued
     * before it existed, whose own id stands for it.
     */
    f: z.string().optional(),
    x: z.number(),
    /** For a code: the redirect URI and the PKCE challenge. */
    u: z.string().optional(),
    h: z.string().optional()
  })
);
export type Approved = z.infer<ReturnType<typeof ApprovedSchema>>;

export const ConsentFormSchema = lazy(() =>
  z.object({
    consent: text(8192),
    decision: z.enum(["allow", "deny"]),
    credential: z.string().max(1000).optional()
  })
);

export const TokenRequestSchema = lazy(() =>
  z.discriminatedUnion("grant_type", [
    z.object({
      grant_type: z.literal("authorization_code"),
      code: text(8192),
      redirect_uri: text(2000),
      client_id: text(8192),
      code_verifier: text(200),
      resource: text(2000).optional()
    }),
    z.object({
      grant_type: z.literal("refresh_token"),
      refresh_token: text(8192),
      client_id: text(8192),
      resource: text(2000).optional(),
      scope: z.string().max(200).optional()
    })
  ])
);
