/**
 * @module The core worker with the MCP layer alone: what MCP costs a
 * worker that opts into it (bench/bundle.ts compares it with bench/core).
 */

import { counter } from "../../examples/counter/index";
import { createRoost, type RoostBindings } from "../../src/index";
import { mcp } from "../../src/layers/mcp/index";

const roost = createRoost({ environments: [counter], layers: [mcp()] });

export const Session = roost.Session;

export default { fetch: roost.fetch } satisfies ExportedHandler<RoostBindings>;
