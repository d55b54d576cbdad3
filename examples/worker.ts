/**
 * @module The demo worker `npm start` and `wrangler deploy` serve: Roost
 * with the bundled example environments. It lives beside the examples, not
 * in the library: a worker of your own lists your environments instead
 * (see own-worker/).
 */

import { createRoost, type RoostBindings } from "roost-edge";
import { allLayers } from "roost-edge/layers";
import { calculator } from "./calculator/index";
import { catalog } from "./catalog/index";
import { codeAnalyst } from "./code-analyst/index";
import { counter } from "./counter/index";
import { maze } from "./maze/index";
import { mcpEverything } from "./mcp-everything/index";
import { story } from "./story/index";
import { support } from "./support/index";
import { tictactoe, tictactoeBot } from "./tictactoe/index";

// code-analyst's tool runs the model's code in isolates started by the
// `LOADER` binding (wrangler.toml's [[worker_loaders]]); its parser, acorn,
// is the price in bundle size (docs/13-performance.md).
const roost = createRoost({
  environments: [
    counter,
    story,
    calculator,
    catalog,
    codeAnalyst,
    mcpEverything,
    maze,
    tictactoe,
    tictactoeBot,
    support
  ],
  // Every protocol and capability: MCP, OAuth, OpenEnv, Aviary, chat,
  // re-scoring, task statistics. A worker of your own names only the ones
  // it serves (docs/16-layers.md).
  layers: allLayers()
});

/** The session Durable Object; `wrangler.toml` binds `SESSIONS` to it. */
export const Session = roost.Session;

/** What `taskStats()` and `oauth()` keep: bound as TASK_STATS and OAUTH_LEDGER. */
export { OAuthLedger, TaskStats } from "roost-edge/layers";

export default { fetch: roost.fetch } satisfies ExportedHandler<RoostBindings>;
