/** @module A worker of your own: Roost as a library, serving your environments. */

import { createRoost } from "roost-edge";
import { guess } from "./guess";

const roost = createRoost({ environments: [guess] });

/** The session Durable Object; wrangler.toml binds `SESSIONS` to it. */
export const Session = roost.Session;
export default { fetch: roost.fetch };
