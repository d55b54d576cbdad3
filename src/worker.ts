/** @module The deployable worker: Roost with the bundled example environments. */

import { counter } from "../examples/counter/index";
import { story } from "../examples/story/index";
import type { RoostBindings } from "./http/env";
import { createRoost } from "./roost";

const roost = createRoost({ environments: [counter, story] });

/** The session Durable Object; `wrangler.toml` binds `SESSIONS` to it. */
export const Session = roost.Session;

export default { fetch: roost.fetch } satisfies ExportedHandler<RoostBindings>;
