/** @module Scoped tokens: minting one for a session, revoking a scope, and the grader's read of the hidden store. */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonValueSchema } from "./json-value";
import { NameSchema } from "./limits";
import { CursorSchema } from "./query";
import { maxBytesParam, truncatedSchema } from "./read-budget";
import { SCOPES } from "./scopes";

export const ScopeSchema = lazy(() =>
  z.enum(SCOPES).meta({
    id: "Scope",
    description:
      "observe: reads and the event stream. act: observe, plus steps, tool calls, chat and the model gateway. grade: observe, plus the hidden store. control: everything but the hidden store (what a session's first token holds). model: the model gateway alone (the key a harness calls its model with)."
  })
);

/** A day; a viewer's link outlives a working day, not a leak. */
export const DEFAULT_TOKEN_TTL_S = 86_400;
/** Thirty days: past that, mint again. */
export const MAX_TOKEN_TTL_S = 2_592_000;

export const TokenRequestSchema = lazy(() =>
  z
    .object({
      scope: ScopeSchema(),
      ttl_s: z
        .number()
        .int()
        .min(1)
        .max(MAX_TOKEN_TTL_S)
        .default(DEFAULT_TOKEN_TTL_S)
        .describe("Seconds until the token is refused (default a day)."),
      agent: NameSchema()
        .optional()
        .describe(
          "A multi-agent session's agent the token is (observe and act only): it steps only as that agent and reads only that agent's view."
        )
    })
    .strict()
    .refine(
      (r) =>
        r.agent === undefined || r.scope === "observe" || r.scope === "act",
      {
        message: "Only observe and act tokens may name an agent.",
        path: ["agent"]
      }
    )
    .meta({ id: "TokenRequest" })
);
export type TokenRequest = z.infer<ReturnType<typeof TokenRequestSchema>>;

export const TokenResponseSchema = lazy(() =>
  z
    .object({
      token: z.string(),
      scope: ScopeSchema(),
      agent: z.string().optional(),
      expires_at: z.string().describe("ISO 8601; refused from then on.")
    })
    .meta({ id: "TokenResponse" })
);
export type TokenResponse = z.infer<ReturnType<typeof TokenResponseSchema>>;

export const RevokeRequestSchema = lazy(() =>
  z.object({ scope: ScopeSchema() }).strict().meta({ id: "RevokeRequest" })
);

export const RevokeResponseSchema = lazy(() =>
  z
    .object({
      scope: ScopeSchema(),
      revoked_before: z
        .string()
        .describe(
          "ISO 8601: tokens of the scope signed before it are refused."
        ),
      token: z
        .string()
        .optional()
        .describe(
          "Revoking control with a control token: a fresh one, since the one sent is now refused."
        )
    })
    .meta({ id: "RevokeResponse" })
);
export type RevokeResponse = z.infer<ReturnType<typeof RevokeResponseSchema>>;

export const HiddenQuerySchema = lazy(() =>
  z.object({
    cursor: CursorSchema().optional(),
    max_bytes: maxBytesParam()
  })
);

export const HiddenResponseSchema = lazy(() =>
  z
    .object({
      hidden: z.record(z.string(), JsonValueSchema()),
      next_cursor: CursorSchema().optional(),
      truncated: truncatedSchema()
    })
    .meta({
      id: "HiddenResponse",
      description:
        "The episode's hidden store, for a grade token only: what the model never sees."
    })
);
