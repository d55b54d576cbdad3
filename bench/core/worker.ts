/**
 * @module The core worker the bundle and startup figures measure (and the
 * bundle test builds): one environment over HTTP and the session socket,
 * no layer. What a trainer that needs nothing else deploys.
 */

import { counter } from "../../examples/counter/index";
import { createRoost, type RoostBindings } from "../../src/index";

const roost = createRoost({ environments: [counter] });

export const Session = roost.Session;

export default { fetch: roost.fetch } satisfies ExportedHandler<RoostBindings>;
