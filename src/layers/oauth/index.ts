/**
 * @module The OAuth layer: the worker as an OAuth 2.1 authorization server
 * for its MCP endpoints (with `ROOST_OAUTH=1`), for hosted chat apps that
 * connect to MCP servers only through OAuth. It goes with `mcp()`; the
 * worker exports `OAuthLedger` and binds it as `OAUTH_LEDGER`.
 */

import type { Layer } from "../../http/layer";
import { oauthAccess } from "./access";
import { oauthChallenge } from "./challenge";
import { OAuthLedger } from "./object";
import { registerOAuthRoutes } from "./routes";

export { OAuthLedger };

export const oauth = (): Layer => ({
  name: "oauth",
  around: [
    ["/v1/sessions/:id/mcp", oauthChallenge],
    ["/v1/environments/:name/mcp", oauthChallenge]
  ],
  accessTokens: async (c, credential) =>
    (await oauthAccess(c, credential))?.grant,
  install: registerOAuthRoutes
});
