/** @module One episode of a leak driver played to its end, every step's observations shown to the watch as it is taken: what the local and the server check share. */

import type { OpenAITool } from "../protocol";
import type { Driver } from "./drivers";
import { type Played, perTask, playOn } from "./episode";
import type { watchFor } from "./sightings";
import type { ValidatedSession } from "./target";

/**
 * Shows `watch` the first observations and the tool schemas (the
 * session's and `schemas`), then plays `p` on `session` with `driver`,
 * each step's action and observations (a tool message under its tool)
 * looked at as it is taken, then `afterStep`'s own places. False, with
 * nothing played, when the episode does not offer the driver's tool.
 */
export const playWatched = async (
  watch: ReturnType<typeof watchFor>,
  session: ValidatedSession,
  p: Played,
  driver: Driver,
  maxSteps: number,
  schemas: readonly OpenAITool[],
  afterStep: (step: number) => void = () => {}
): Promise<boolean> => {
  watch.look("observations", p.first.observations, 0);
  watch.look("tool schemas", [p.first.tools, schemas], 0);
  const offered = p.first.tools.some((t) => t.function.name === driver.tool);
  if (driver.tool !== undefined && !offered) return false;
  await playOn(
    [session],
    [p],
    perTask(session, (t) => driver.make(t)),
    maxSteps,
    () => {
      const step = p.steps.length;
      watch.moved(step, p.actions.at(-1));
      for (const m of p.steps.at(-1)!.observations)
        watch.look(
          "observations",
          m,
          step,
          m.role === "tool" && m.name !== undefined ? { tool: m.name } : {}
        );
      afterStep(step);
    }
  );
  return true;
};
