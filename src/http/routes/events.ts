/** @module The event log over HTTP (polling, gap filling) and the WebSocket upgrade. */

import { createMiddleware } from "hono/factory";
import { RoostError } from "../../errors";
import {
  CLOSE_CODES,
  EventsQuerySchema,
  EventsResponseSchema,
  SessionParamsSchema,
  subprotocolHeaders,
  tokenFromSubprotocols
} from "../../protocol";
import { allows } from "../../protocol/scopes";
import { admit } from "../auth";
import { defineRoute, type RouteEntry, route } from "../define-route";
import type { AppEnv } from "../env";
import { gatewayTo, runOperation } from "../gateway";
import {
  errors,
  jsonContent,
  SESSION_ERRORS,
  SESSION_SECURITY
} from "../route-kit";

export const eventsRoute = route(
  {
    security: SESSION_SECURITY,
    method: "get",
    path: "/v1/sessions/{id}/events",
    tags: ["events"],
    summary: "Read the event log",
    description:
      "Every retained event with seq > after, oldest first — the frames the WebSocket streams. 410 gone when events after `after` were already trimmed; 400 when `after` is past the last seq. Without `after`, every retained event from the oldest. At most limit events and max_bytes (1 MiB by default) a page; truncated says bytes ended it."
  },
  {
    request: () => ({
      params: SessionParamsSchema(),
      query: EventsQuerySchema()
    }),
    responses: () => ({
      200: jsonContent(EventsResponseSchema(), "Events after the given seq."),
      ...errors(...SESSION_ERRORS, 410)
    })
  }
);

/**
 * A refused socket is still accepted (selecting the offered protocol, as an
 * admitted one would), then closed with 4401/4403: clients cannot read the
 * status of a failed upgrade.
 */
const refuse = (request: Request, code: number, reason: string): Response => {
  const pair = new WebSocketPair();
  const server = pair[1];
  server.accept();
  server.close(code, reason);
  return new Response(null, {
    status: 101,
    webSocket: pair[0],
    headers: subprotocolHeaders(request)
  });
};

/**
 * `GET /v1/sessions/:id/ws`: the token comes in `Sec-WebSocket-Protocol`
 * (`roost.v1, roost.token.<token>`) or `?token=`. It is checked here, so a
 * bad token never wakes the session.
 */
export const webSocketGate = createMiddleware<AppEnv>(async (c) => {
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
    return c.json(
      {
        error: {
          code: "invalid_request",
          message: "Connect with a WebSocket upgrade."
        }
      },
      426,
      { Upgrade: "websocket" }
    );
  }
  const credential =
    tokenFromSubprotocols(c.req.header("Sec-WebSocket-Protocol")) ??
    c.req.query("token");
  if (credential === undefined || credential === "") {
    return refuse(
      c.req.raw,
      CLOSE_CODES.unauthorized,
      "Send the session token."
    );
  }
  let admitted: Awaited<ReturnType<typeof admit>>;
  try {
    admitted = await admit(c, credential);
  } catch (error) {
    // A genuine token past its expiry: said with the socket's own code.
    if (error instanceof RoostError && error.code === "unauthorized")
      return refuse(c.req.raw, CLOSE_CODES.unauthorized, error.message);
    throw error;
  }
  if (admitted === undefined) {
    return refuse(
      c.req.raw,
      CLOSE_CODES.forbidden,
      "These credentials do not admit to this session."
    );
  }
  // A model token calls the gateway and sees nothing of the session.
  if (!allows(admitted.grant.scope, "observe")) {
    return refuse(
      c.req.raw,
      CLOSE_CODES.forbidden,
      "A model token calls the session's model gateway and nothing else."
    );
  }
  return gatewayTo(c.env.SESSIONS, admitted.durableId, admitted.grant).fetch(
    c.req.raw
  );
});

export const eventRoutes: readonly RouteEntry[] = [
  defineRoute(eventsRoute, async (c) => {
    const value = await runOperation(c, "events", c.req.valid("query"));
    return c.json(value, 200);
  })
];
