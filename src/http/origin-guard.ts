/**
 * @module Who may reach the runtime from a browser: a request whose Origin
 * is neither the worker's own nor allowed (ROOST_CORS_ORIGINS; localhost
 * in development) is refused with 403 before anything runs, as MCP's
 * Streamable HTTP transport requires of its servers and as every route
 * deserves. In development the server has no auth at all, so its Host
 * must be local too: a page on another site that rebinds its DNS name to
 * 127.0.0.1 reaches the port with its own name as Host, and is refused.
 */

import { createMiddleware } from "hono/factory";
import { RoostError } from "../errors";
import { tokenFromSubprotocols } from "../protocol/subprotocol";
import { allowOrigin } from "./cors";
import { type AppEnv, isDev, listSetting } from "./env";

const LOCAL_HOST =
  /^(localhost|[a-z0-9-]+\.localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

/** Hosts a development server answers besides local ones: those of its listed origins. */
const listedHosts = (setting: string | undefined): string[] =>
  listSetting(setting).flatMap((origin) => {
    try {
      return [new URL(origin).host];
    } catch {
      return [];
    }
  });

/**
 * A socket opened with its token in the subprotocol: a credential no
 * browser attaches on its own, so only a page it was handed to can send
 * it, from wherever it runs (an MCP App in a host's sandboxed frame,
 * whose origin is `null`). The token is checked as on every socket.
 */
const carriesToken = (offered: string | undefined): boolean =>
  tokenFromSubprotocols(offered) !== undefined;

export const originGuard = createMiddleware<AppEnv>(async (c, next) => {
  const url = new URL(c.req.url);
  if (isDev(c.env)) {
    const host = c.req.header("Host") ?? url.host;
    if (
      !LOCAL_HOST.test(host) &&
      !listedHosts(c.env.ROOST_CORS_ORIGINS).includes(host)
    )
      throw new RoostError(
        "forbidden",
        `A development server (ROOST_DEV=1) answers local hosts only, not ${JSON.stringify(host.slice(0, 100))}: it has no auth, so another site must not reach it through DNS. List an origin in ROOST_CORS_ORIGINS to allow its host.`
      );
  }
  const origin = c.req.header("Origin");
  if (
    origin !== undefined &&
    origin !== url.origin &&
    allowOrigin(c.env, origin) === null &&
    !carriesToken(c.req.header("Sec-WebSocket-Protocol"))
  )
    throw new RoostError(
      "forbidden",
      `Requests from the origin ${JSON.stringify(origin.slice(0, 200))} are not allowed: list it in ROOST_CORS_ORIGINS.`
    );
  await next();
});
