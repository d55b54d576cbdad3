/**
 * @module No leakage over a server: what the environment's reset hid
 * (read with a grade token) never appears in anything a model or its
 * client is shown, each place read the way its client reads it, in
 * episodes played to their ends.
 */

import type { RoostSession } from "../client/session-client";
import { type Driver, driversPlayed, leakDrivers } from "./drivers";
import { begin, type Played } from "./episode";
import type { httpSession } from "./http-target";
import { type CheckRow, row } from "./report";
import { mcpListings, openEnvFrames, type Wire } from "./server-places";
import { describeLeak, type Sighting, secretsOf, watchFor } from "./sightings";
import type { Target, TaskChoice } from "./target";
import { playWatched } from "./watched-play";

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

type Watch = ReturnType<typeof watchFor>;

/**
 * The session's events, each searched at the step it belongs to (a
 * step's events come before its `step` event) under the tool it names.
 */
const lookAtEvents = async (
  watch: Watch,
  session: RoostSession,
  end: number
): Promise<void> => {
  let step = 1;
  for await (const e of session.items.events()) {
    if (e.type === "step") {
      watch.look("events", e, e.step);
      step = e.step + 1;
      continue;
    }
    const tool = (e as { tool?: unknown }).tool;
    watch.look(
      "events",
      e,
      Math.min(step, end),
      typeof tool === "string" ? { tool } : {}
    );
  }
};

/**
 * One episode of `driver` on a new session: each step's observations are
 * searched as it is taken, the events (by the step they belong to), the
 * transcript, the store and `/frame` when it ends; with `everywhere`, OpenEnv's frames of the same
 * actions and the session's MCP listings too (they carry what the other
 * places do in other shapes, so one episode reads them).
 */
const watchEpisode = async (
  wire: Wire,
  target: Target,
  driver: Driver,
  task: TaskChoice,
  maxSteps: number,
  everywhere: boolean
): Promise<{ sightings: Sighting[]; secrets: number }> => {
  const opened = await target.open();
  const session = (opened as ReturnType<typeof httpSession>).remote;
  const p: Played = await begin(opened, task);
  const hidden = (p.fresh as { hidden: Parameters<typeof secretsOf>[0] })
    .hidden;
  const secrets = secretsOf(hidden);
  const watch = watchFor(secrets);
  const done = () => ({ sightings: watch.sightings, secrets: secrets.length });
  if (secrets.length === 0) return done();
  if (
    !(await playWatched(watch, opened, p, driver, maxSteps, target.toolSchemas))
  )
    return done();
  const end = p.steps.length;
  await lookAtEvents(watch, session, end);
  const atEnd = (place: string, value: unknown) =>
    watch.look(place, value, end, { afterEnd: true });
  const transcript = (await collect(session.items.messages())).filter(
    (m) => m.role !== "assistant"
  );
  atEnd("the transcript", transcript);
  atEnd("the store (the model's view)", await collect(session.items.store()));
  atEnd("/frame", await session.frame());
  if (everywhere) {
    atEnd(
      "OpenEnv frames",
      await openEnvFrames(wire, target.name, task, p.actions)
    );
    const mcp = await mcpListings(wire, session);
    atEnd("MCP tools/list", mcp.tools);
    atEnd("MCP resources", [mcp.resources, mcp.reads]);
  }
  return done();
};

/**
 * Episodes of each driver (drivers.ts) on new sessions; every place is
 * searched for the values the hidden store held right after reset. No
 * route writes a server's hidden store, so there is no canary here: that
 * is the local check's (validateEnvironment).
 */
export const serverLeakage = async (
  wire: Wire,
  target: Target,
  task: TaskChoice,
  maxSteps: number
): Promise<CheckRow> => {
  const drivers = leakDrivers(target.toolSchemas, target.oracle.oracle);
  let secrets = 0;
  for (const [i, driver] of drivers.entries()) {
    const seen = await watchEpisode(
      wire,
      target,
      driver,
      task,
      maxSteps,
      i === 0
    );
    // Nothing hidden, nothing to leak: the other drivers would find nothing.
    if (seen.secrets === 0 && i === 0) break;
    secrets = Math.max(secrets, seen.secrets);
    if (seen.sightings.length > 0)
      return row(
        "no leakage",
        describeLeak(seen.sightings, task, driver.name),
        ""
      );
  }
  if (secrets === 0)
    return row(
      "no leakage",
      undefined,
      "reset hid no value of 4 characters or more: nothing to look for in observations, tools, transcript, store, events, /frame, OpenEnv frames and MCP listings (the hidden-store canary is a local check)"
    );
  return row(
    "no leakage",
    undefined,
    `${secrets} hidden value(s) stayed out of observations, tools, transcript, store, events and /frame in ${driversPlayed(drivers)}, and out of the first's OpenEnv frames and MCP listings (the hidden-store canary is a local check)`
  );
};
