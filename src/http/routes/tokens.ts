/**
 * @module Scoped tokens: minted for a session with a control credential,
 * revoked a scope at a time, and the one route only `grade` reaches, the
 * hidden store. The session dates a token and keeps its revocations; the
 * worker, which holds the signing keys, signs.
 */

import { SessionParamsSchema } from "../../protocol";
import {
  HiddenQuerySchema,
  HiddenResponseSchema,
  RevokeRequestSchema,
  RevokeResponseSchema,
  TokenRequestSchema,
  TokenResponseSchema
} from "../../protocol/http-tokens";
import { jsonBody } from "../body";
import { defineRoute, type RouteEntry, route } from "../define-route";
import { runOperation } from "../gateway";
import {
  BODY_ERRORS,
  errors,
  jsonContent,
  jsonRequest,
  SESSION_ERRORS,
  SESSION_SECURITY
} from "../route-kit";
import { signScopedToken } from "../scoped-token";
import { signingKeys } from "../secrets";

const iso = (ms: number) => new Date(ms).toISOString();

export const mintTokenRoute = route(
  {
    method: "post",
    path: "/v1/sessions/{id}/tokens",
    tags: ["sessions"],
    summary: "Mint a scoped token",
    description:
      "A token for this session only, holding one scope until it expires: observe (reads and the event stream, for a viewer's browser), act (observe plus steps, tool calls and chat, for an agent), grade (observe plus the hidden store, for a grader) or control (everything but the hidden store). Needs a control token or an API key.",
    security: SESSION_SECURITY,
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(TokenRequestSchema())
    }),
    responses: () => ({
      201: jsonContent(TokenResponseSchema(), "The token."),
      ...errors(...BODY_ERRORS)
    })
  }
);

export const revokeTokensRoute = route(
  {
    method: "post",
    path: "/v1/sessions/{id}/tokens/revoke",
    tags: ["sessions"],
    summary: "Revoke a scope's tokens",
    description:
      "Refuses every token of the scope signed until now (a leaked link), and closes the sockets opened with one (4401). API keys are not affected. Revoking control with a control token answers a fresh control token, since the one sent is refused from now on. Needs a control token or an API key.",
    security: SESSION_SECURITY,
    middleware: [jsonBody] as const
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      body: jsonRequest(RevokeRequestSchema())
    }),
    responses: () => ({
      200: jsonContent(RevokeResponseSchema(), "The cutoff."),
      ...errors(...BODY_ERRORS)
    })
  }
);

export const hiddenRoute = route(
  {
    method: "get",
    path: "/v1/sessions/{id}/hidden",
    tags: ["store"],
    summary: "Read the hidden store (grade only)",
    description:
      "The episode's hidden store, which the model and every other credential never see: for a grader holding a grade token. Paged like the state.",
    security: SESSION_SECURITY
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      query: HiddenQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(HiddenResponseSchema(), "The hidden values."),
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const tokenRoutes: readonly RouteEntry[] = [
  defineRoute(mintTokenRoute, async (c) => {
    const issued = await runOperation(c, "issueToken", c.req.valid("json"));
    const token = await signScopedToken(
      await signingKeys(c.env),
      c.get("sessionId"),
      issued
    );
    return c.json(
      {
        token,
        scope: issued.scope,
        ...(issued.agent === undefined ? {} : { agent: issued.agent }),
        expires_at: iso(issued.expiresAt * 1000)
      },
      201
    );
  }),
  defineRoute(revokeTokensRoute, async (c) => {
    const { scope, before } = await runOperation(
      c,
      "revokeTokens",
      c.req.valid("json")
    );
    const grant = c.get("grant");
    // The caller's own control token is refused from now on: hand it one
    // dated at the cutoff, as the session's first token never expiring.
    const fresh =
      scope === "control" && !grant.apiKey
        ? await signScopedToken(await signingKeys(c.env), c.get("sessionId"), {
            scope,
            issuedAt: before
          })
        : undefined;
    return c.json(
      {
        scope,
        revoked_before: iso(before),
        ...(fresh === undefined ? {} : { token: fresh })
      },
      200
    );
  }),
  defineRoute(hiddenRoute, async (c) => {
    const { cursor, max_bytes } = c.req.valid("query");
    return c.json(
      await runOperation(c, "readHidden", {
        ...(cursor === undefined ? {} : { cursor }),
        ...(max_bytes === undefined ? {} : { max_bytes })
      }),
      200
    );
  })
];
