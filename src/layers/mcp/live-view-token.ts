/** @module The live view's credential: an observe-only token minted for the page on each read, as POST …/tokens mints one. */

import type { Context } from "hono";
import type { AppEnv } from "../../http/env";
import { gatewayTo } from "../../http/gateway";
import { signScopedToken } from "../../http/scoped-token";
import { signingKeys } from "../../http/secrets";
import { wsUrl } from "../../http/ws-url";
import { SERVER_GRANT } from "../../protocol/scopes";
import type { LiveView } from "./live-view";

/** How long the page may watch before it must be read again. */
const VIEW_TTL_S = 3_600;

/**
 * The live view of session `sessionId`. The token is the server's to mint
 * (the caller may hold only `act`): it can only observe, which every
 * credential that reaches the session may do already, and revoking
 * `observe` revokes it.
 */
export const liveViewOf =
  (c: Context<AppEnv>, sessionId: string, durableId: DurableObjectId) =>
  async (): Promise<LiveView> => {
    const issued = await gatewayTo(c.env.SESSIONS, durableId, SERVER_GRANT).op(
      "issueToken",
      { scope: "observe", ttl_s: VIEW_TTL_S }
    );
    return {
      sessionId,
      socket: wsUrl(new URL(c.req.url).origin, sessionId),
      token: await signScopedToken(await signingKeys(c.env), sessionId, issued)
    };
  };
