/** @module The worker the workerd tests run: the bundled examples plus test fixtures. */

import { counter } from "../examples/counter/index";
import { story } from "../examples/story/index";
import { createRoost } from "../src/roost";
import { lab } from "./fixtures/environments";

const roost = createRoost({
  environments: [counter, story, lab],
  // Small, so the slow-reader test needs few events.
  socketBacklog: 30
});

export const Session = roost.Session;
export default { fetch: roost.fetch };
