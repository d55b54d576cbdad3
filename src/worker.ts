/** @module The deployable worker: Roost with the bundled example environments. */

import { calculator } from "../examples/calculator/index";
import { catalog } from "../examples/catalog/index";
import { counter } from "../examples/counter/index";
import { story } from "../examples/story/index";
import type { RoostBindings } from "./http/env";
import { createRoost } from "./roost";

const roost = createRoost({
  environments: [counter, story, calculator, catalog]
});

/** The session Durable Object; `wrangler.toml` binds `SESSIONS` to it. */
export const Session = roost.Session;

export default { fetch: roost.fetch } satisfies ExportedHandler<RoostBindings>;
