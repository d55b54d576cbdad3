/** @module What a multi-agent step adds to its answer and its event. */

import * as z from "zod";
import { NameSchema } from "./limits";

/**
 * The agent that acted (whose view `observations` are, and whose
 * `reward`), whose turn it is now (nobody's once the episode ended), and
 * each agent's reward from the step. Absent in a one-agent environment.
 */
export const agentsFields = () => ({
  agent: NameSchema().optional(),
  turn: z.array(NameSchema()).optional(),
  rewards: z.record(z.string(), z.number()).optional()
});
