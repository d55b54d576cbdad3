/** @module The worker the workerd tests run: the bundled examples plus test fixtures. */

import { counter } from "../examples/counter/index";
import { story } from "../examples/story/index";
import { createRoost } from "../src/roost";
import { lab } from "./fixtures/environments";

const roost = createRoost({ environments: [counter, story, lab] });

export const Session = roost.Session;
export default { fetch: roost.fetch };
