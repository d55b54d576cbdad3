/** @module No leakage on a local session: a canary written to the hidden store, and whatever reset hid, stay out of all the model sees, in episodes played to their ends. */

import type { Environment } from "../environment/define-environment";
import type { JsonValue } from "../json";
import { createLocalSession } from "../runner/local-session";
import { type Driver, driversPlayed, leakDrivers } from "./drivers";
import { begin, type TaskChoice } from "./episode";
import { type CheckRow, row } from "./report";
import {
  CANARY_KEY,
  describeLeak,
  type Sighting,
  secretsOf,
  watchFor
} from "./sightings";
import { localSession, type Target } from "./target";
import { playWatched } from "./watched-play";

/**
 * One episode of `driver` on a new session whose hidden store gets the
 * canary as each reset begins; each step's observations (by tool), the
 * tool updates and results it emitted, and the model's view of the store
 * are searched as it is taken, the transcript when it ends.
 */
const watchEpisode = async (
  environment: Environment,
  driver: Driver,
  task: TaskChoice,
  maxSteps: number
): Promise<{ sightings: Sighting[]; secrets: number }> => {
  const canary = `canary-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const wrapped: Environment = {
    ...environment,
    reset: (args) => {
      args.ctx.hidden.set(CANARY_KEY, canary);
      return environment.reset(args);
    }
  };
  const events: { tool: string; value: unknown }[] = [];
  const local = createLocalSession(wrapped, {
    hooks: {
      onUpdate: (call, update) =>
        events.push({ tool: call.tool, value: update }),
      onResult: (call, result) =>
        events.push({ tool: call.tool, value: result })
    }
  });
  const session = localSession(local);
  const p = await begin(session, task);
  const hidden = (p.fresh as { hidden: Record<string, JsonValue> }).hidden;
  const { [CANARY_KEY]: _, ...own } = hidden;
  const secrets = secretsOf(own);
  const watch = watchFor([{ key: CANARY_KEY, value: canary }, ...secrets]);
  const played = await playWatched(
    watch,
    session,
    p,
    driver,
    maxSteps,
    environment.toolSchemas,
    (step) => {
      for (const e of events.splice(0))
        watch.look("events", e.value, step, { tool: e.tool });
      watch.look("the model's view", local.parts.environment.llmView(), step);
    }
  );
  if (!played) return { sightings: watch.sightings, secrets: secrets.length };
  const transcript = (
    local.parts.state.get("messages") as { role: string }[]
  ).filter((m) => m.role !== "assistant");
  watch.look("the transcript", transcript, p.steps.length, { afterEnd: true });
  return { sightings: watch.sightings, secrets: secrets.length };
};

/**
 * A canary is written to the hidden store as each reset begins; neither it
 * nor anything the environment's reset hid may appear in what the model
 * sees: observations, tool schemas, the transcript's non-assistant
 * messages, the store's model view, or the updates tools emit. Each of the
 * drivers (drivers.ts) plays an episode to its end, so what an environment
 * shows late is seen too. The canary needs the environment's code: a
 * server has no route that writes the hidden store, so its leakage check
 * looks for what reset hid alone.
 */
export const leakage = async (
  environment: Environment,
  target: Target,
  task: TaskChoice,
  maxSteps: number
): Promise<CheckRow> => {
  const drivers = leakDrivers(target.toolSchemas, target.oracle.oracle);
  let secrets = 0;
  for (const driver of drivers) {
    const seen = await watchEpisode(environment, driver, task, maxSteps);
    secrets = Math.max(secrets, seen.secrets);
    if (seen.sightings.length > 0)
      return row(
        "no leakage",
        describeLeak(seen.sightings, task, driver.name),
        ""
      );
  }
  return row(
    "no leakage",
    undefined,
    `a hidden canary and ${secrets} hidden value(s) stayed out of observations, tools, transcript, model view and events in ${driversPlayed(drivers)}`
  );
};
