/** @module MCP endpoints: a session's tools over the Model Context Protocol, and one fresh session per MCP client of an environment. */

import type { Context } from "hono";
import * as z from "zod";
import type { Environment } from "../../environment/define-environment";
import { RoostError } from "../../errors";
import { createAuth } from "../../http/auth";
import {
  defineRawRoute,
  defineRoute,
  type RouteEntry,
  route
} from "../../http/define-route";
import type { AppEnv } from "../../http/env";
import { gatewayTo, type SessionGateway, sessionOf } from "../../http/gateway";
import {
  CREATE_SECURITY,
  errors,
  SESSION_ERRORS,
  SESSION_SECURITY
} from "../../http/route-kit";
import { signingKeys } from "../../http/secrets";
import {
  provenSession,
  sessionCredential
} from "../../http/session-credential";
import { lazy } from "../../lazy";
import {
  EnvironmentParamsSchema,
  JSONRPC_ERRORS,
  MCP_SESSION_HEADER,
  SessionParamsSchema
} from "../../protocol";
import { isSessionGone } from "./failure";
import { liveViewOf } from "./live-view-token";
import { mcpSessionToken } from "./session-token";
import { expectUse, startMcpSession } from "./start-session";
import { answerStateless } from "./stateless-environment";
import { noStream, readMcp, rpcError } from "./streamable-http";
import { sessionTarget } from "./target";

const SESSION_PATH = "/v1/sessions/{id}/mcp";
const ENVIRONMENT_PATH = "/v1/environments/{name}/mcp";

const answered = lazy(() => ({
  200: {
    description:
      "A JSON-RPC 2.0 response (a result, or an error with its JSON-RPC code).",
    content: { "application/json": { schema: z.looseObject({}) } }
  },
  202: { description: "A notification or a client response: accepted." },
  400: {
    description:
      "Not JSON (-32700), not one JSON-RPC message (-32600), or for the environment endpoint no Mcp-Session-Id."
  }
}));

const describe = (what: string) =>
  `${what} The body is one JSON-RPC 2.0 message of the Model Context Protocol (Streamable HTTP transport, answered as application/json). Revisions 2024-11-05 to 2025-11-25 start with initialize (then ping, tools/list, tools/call, resources/list, resources/templates/list, resources/read, and 2025-11-25's tasks/get, tasks/result, tasks/list, tasks/cancel); 2026-07-28 is stateless: server/discover instead of initialize, every request carrying its revision in _meta and the Mcp-Method (and Mcp-Name) headers, which must agree with the body (400 -32020 when not), and tasks through the io.modelcontextprotocol/tasks extension (tasks/get, tasks/cancel, tasks/update).`;

export const mcpSessionRoute = route(
  {
    method: "post",
    path: SESSION_PATH,
    tags: ["mcp"],
    summary: "MCP server of one session",
    description: describe(
      "The session's tools over MCP: tools/call runs a tool exactly as POST …/tools/:tool does and streams like it. Mcp-Session-Id is the session id."
    ),
    security: SESSION_SECURITY
  },
  {
    request: () => ({ params: SessionParamsSchema() }),
    responses: () => ({ ...answered(), ...errors(...SESSION_ERRORS) })
  }
);

export const mcpSessionGetRoute = route(
  {
    method: "get",
    path: SESSION_PATH,
    tags: ["mcp"],
    summary: "MCP server-sent stream (not offered)",
    description: "405: Roost sends nothing unasked, so there is no stream.",
    security: SESSION_SECURITY
  },
  {
    request: () => ({ params: SessionParamsSchema() }),
    responses: () => ({
      405: { description: "No stream." },
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const mcpSessionDeleteRoute = route(
  {
    method: "delete",
    path: SESSION_PATH,
    tags: ["mcp"],
    summary: "End an MCP session (not offered)",
    description:
      "405: here the MCP session is the Roost session, which an MCP client does not end; DELETE /v1/sessions/{id} does.",
    security: SESSION_SECURITY
  },
  {
    request: () => ({ params: SessionParamsSchema() }),
    responses: () => ({
      405: { description: "Not ended from MCP." },
      ...errors(...SESSION_ERRORS)
    })
  }
);

export const mcpEnvironmentRoute = route(
  {
    method: "post",
    path: ENVIRONMENT_PATH,
    tags: ["mcp"],
    summary: "MCP server that makes a session per client",
    description: describe(
      'initialize without Mcp-Session-Id creates and resets a session of the environment and answers Mcp-Session-Id = <session_id>.<token>, which later messages send back; it proves possession like a token (404 when it does not, so the client initializes again). Stateless (2026-07-28): a tools/call without _meta["dev.roost/session"] starts a session and answers that credential in its result\'s _meta; a request that sends it back continues the session. Needs an API key when ROOST_API_KEYS is set.'
    ),
    security: CREATE_SECURITY,
    middleware: [createAuth] as const
  },
  {
    request: () => ({ params: EnvironmentParamsSchema() }),
    responses: () => ({
      ...answered(),
      ...errors(400, 401, 403, 404, 500, 503)
    })
  }
);

export const mcpEnvironmentGetRoute = route(
  {
    method: "get",
    path: ENVIRONMENT_PATH,
    tags: ["mcp"],
    summary: "MCP server-sent stream (not offered)",
    security: CREATE_SECURITY,
    middleware: [createAuth] as const
  },
  {
    request: () => ({ params: EnvironmentParamsSchema() }),
    responses: () => ({
      405: { description: "No stream." },
      ...errors(401, 403)
    })
  }
);

export const mcpEnvironmentDeleteRoute = route(
  {
    method: "delete",
    path: ENVIRONMENT_PATH,
    tags: ["mcp"],
    summary: "End an MCP session and its Roost session",
    description:
      "Deletes the Roost session the Mcp-Session-Id names (204), as DELETE /v1/sessions/{id} would: it was made for this MCP client alone. 400 without the header, 404 when it names no session.",
    security: CREATE_SECURITY,
    middleware: [createAuth] as const
  },
  {
    request: () => ({ params: EnvironmentParamsSchema() }),
    responses: () => ({
      204: { description: "Ended." },
      400: { description: "No Mcp-Session-Id." },
      404: { description: "The Mcp-Session-Id names no session." },
      ...errors(401, 403, 503)
    })
  }
);

const unknownSession = (status: 400 | 404, message: string) =>
  rpcError(status, JSONRPC_ERRORS.invalidRequest, message);

const MISSING_HEADER = `Send the ${MCP_SESSION_HEADER} header that initialize answered (or initialize first).`;
const UNKNOWN_HEADER = `Unknown ${MCP_SESSION_HEADER}: initialize again.`;

/** The session the request's Mcp-Session-Id proves, or the error to answer. */
const headerSession = async (
  c: Context<AppEnv>
): Promise<
  { session: SessionGateway; header: string; sessionId: string } | Response
> => {
  const header = c.req.header(MCP_SESSION_HEADER);
  if (header === undefined) return unknownSession(400, MISSING_HEADER);
  const proven = await provenSession(c, header);
  return proven === undefined
    ? unknownSession(404, UNKNOWN_HEADER)
    : {
        session: gatewayTo(c.env.SESSIONS, proven.durableId, proven.grant),
        header,
        sessionId: proven.sessionId
      };
};

/** A session gone under an MCP client is a 404: it initializes again. */
const orGone = async (answer: () => Promise<Response>): Promise<Response> => {
  try {
    return await answer();
  } catch (error) {
    if (!isSessionGone(error)) throw error;
    return unknownSession(
      404,
      "This MCP session's Roost session has ended: initialize again."
    );
  }
};

/**
 * The MCP server of one session, whose Mcp-Session-Id is `header`: here at
 * /v1/sessions/{id}/mcp, and under an OpenEnv base that names the session.
 */
export const answerSessionMcp = async (
  c: Context<AppEnv>,
  session: SessionGateway,
  header: string
): Promise<Response> => {
  const read = await readMcp(c.req.raw, c.get("limits"), keysOf(c));
  if (read.kind === "answered") return read.response;
  if (read.kind === "accepted") return c.body(null, 202);
  const target = sessionTarget(
    c.get("registry"),
    session,
    // The header is the session id, or a credential that begins with it.
    liveViewOf(c, header.split(".")[0] ?? header, session.id)
  );
  if (read.kind === "response") {
    await target.answerClient(read.id, read.answer);
    return c.body(null, 202);
  }
  return await read.answer(target, {
    headers: { [MCP_SESSION_HEADER]: header }
  });
};

/** The deployment's signing keys, read when a request needs them (request-state.ts). */
const keysOf = (c: Context<AppEnv>) => () => signingKeys(c.env);

/**
 * The MCP server of an environment, a session per client: here at
 * /v1/environments/{name}/mcp, and under its OpenEnv bases. The caller
 * has admitted the request.
 */
export const answerEnvironmentMcp = async (
  c: Context<AppEnv>,
  environment: Environment
): Promise<Response> => {
  const read = await readMcp(c.req.raw, c.get("limits"), keysOf(c));
  if (read.kind === "answered") return read.response;
  if (read.kind === "request" && read.revision.modern) {
    return await answerStateless(c, environment, read);
  }
  const creates =
    read.kind === "request" &&
    read.method === "initialize" &&
    c.req.header(MCP_SESSION_HEADER) === undefined;
  if (!creates) {
    // Notifications too: nothing is accepted for a session not proven.
    const found = await headerSession(c);
    if (found instanceof Response) return found;
    if (read.kind === "accepted") return c.body(null, 202);
    // Served as that session's /mcp, whichever environment it runs.
    const target = sessionTarget(
      c.get("registry"),
      found.session,
      liveViewOf(c, found.sessionId, found.session.id)
    );
    if (read.kind === "response") {
      return await orGone(async () => {
        await target.answerClient(read.id, read.answer);
        return c.body(null, 202);
      });
    }
    return await orGone(() =>
      read.answer(target, { headers: { [MCP_SESSION_HEADER]: found.header } })
    );
  }
  if (read.kind !== "request") return c.body(null, 202);
  const started = await startMcpSession(c, environment, read.id);
  if (started instanceof Response) return started;
  const target = sessionTarget(
    c.get("registry"),
    started.session,
    liveViewOf(c, started.sessionId, started.session.id)
  );
  const answer = await read.answer(target, {
    headers: {
      [MCP_SESSION_HEADER]: sessionCredential(
        started.sessionId,
        await mcpSessionToken(c, started)
      )
    }
  });
  await expectUse(started);
  return answer;
};

// The POST routes read JSON-RPC bodies through the MCP transport rather
// than a zod validator, so they say so (readsBody).
export const mcpRoutes: readonly RouteEntry[] = [
  defineRawRoute(
    mcpSessionRoute,
    // A session that is gone throws on to Roost's own 404.
    (c) => answerSessionMcp(c, sessionOf(c), c.get("sessionId")),
    { readsBody: true }
  ),
  defineRoute(mcpSessionGetRoute, () => noStream(["POST"])),
  defineRoute(mcpSessionDeleteRoute, () => {
    throw new RoostError(
      "method_not_allowed",
      "This MCP session is the Roost session itself: end it with DELETE /v1/sessions/{id}.",
      { allow: ["POST"] }
    );
  }),

  defineRawRoute(
    mcpEnvironmentRoute,
    (c) =>
      answerEnvironmentMcp(c, c.get("registry").get(c.req.valid("param").name)),
    { readsBody: true }
  ),
  defineRoute(mcpEnvironmentGetRoute, () => noStream(["POST", "DELETE"])),
  defineRawRoute(mcpEnvironmentDeleteRoute, async (c) => {
    const found = await headerSession(c);
    if (found instanceof Response) return found;
    return await orGone(async () => {
      await found.session.op("destroy", {});
      return new Response(null, { status: 204 });
    });
  })
];
