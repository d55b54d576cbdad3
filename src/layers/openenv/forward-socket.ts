/**
 * @module An admitted OpenEnv upgrade, handed to the session's object,
 * which holds the socket (object-socket.ts): a new socket to a new
 * object, whose session its first frame makes; a re-attached one to its
 * session's. A refused socket never reaches an object: it answers its
 * first frame with the refusal here, then closes.
 */

import type { Context } from "hono";
import type { AppEnv } from "../../http/env";
import { sessionStub } from "../../http/gateway";
import { SERVER_GRANT } from "../../protocol/scopes";
import { withGrant } from "../../session/grant-header";
import type { ChannelOptions, Refusal } from "./bases";
import { OPENENV_SOCKET, withAdmission } from "./object-socket";
import { errorFrame } from "./translate";

/** A socket that answers its first frame with `refusal` and closes. */
const refusedSocket = (refusal: Refusal): Response => {
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  server.accept();
  server.addEventListener(
    "message",
    () => {
      try {
        server.send(JSON.stringify(errorFrame(refusal.code, refusal.message)));
        server.close(refusal.closeCode, refusal.message.slice(0, 120));
      } catch {
        // The client is gone.
      }
    },
    { once: true }
  );
  return new Response(null, { status: 101, webSocket: client });
};

export const forwardSocket = (
  c: Context<AppEnv>,
  options: ChannelOptions
): Promise<Response> | Response => {
  if (options.refusal !== undefined) return refusedSocket(options.refusal);
  const attached = options.session;
  const id = attached?.session.id ?? c.env.SESSIONS.newUniqueId();
  // The creator of a new session holds its first token, which is `control`.
  const grant = attached?.session.grant ?? SERVER_GRANT;
  const url = new URL(c.req.url);
  url.pathname = `/socket/${OPENENV_SOCKET}`;
  const request = withAdmission(withGrant(new Request(url, c.req.raw), grant), {
    environment: options.environment.name,
    keep: options.keep,
    ...(attached === undefined ? {} : { token: attached.token })
  });
  return sessionStub(c.env.SESSIONS, id).fetch(request);
};
