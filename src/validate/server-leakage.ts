/**
 * @module No leakage over a server: what the environment's reset hid
 * (read with a grade token) never appears in anything a model or its
 * client is shown, each place read the way its client reads it.
 */

import { playTogether } from "./episode";
import type { httpSession } from "./http-target";
import { placesHolding, secretsIn } from "./leakage";
import { scripted } from "./policies";
import { type CheckRow, row } from "./report";
import { mcpListings, openEnvFrames, type Wire } from "./server-places";
import type { Target, TaskRef } from "./target";

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

/**
 * A scripted episode on a new session; then every place is searched for
 * the values the hidden store held right after reset. No route writes a
 * server's hidden store, so there is no canary here: that is the local
 * check's (validateEnvironment).
 */
export const serverLeakage = async (
  wire: Wire,
  target: Target,
  task: TaskRef,
  maxSteps: number
): Promise<CheckRow> => {
  const opened = await target.open();
  const session = (opened as ReturnType<typeof httpSession>).remote;
  const [p] = await playTogether([opened], task, scripted(3), maxSteps);
  const hidden = (p!.fresh as { hidden: Parameters<typeof secretsIn>[0] })
    .hidden;
  const secrets = secretsIn(hidden);
  const transcript = (await collect(session.items.messages())).filter(
    (m) => m.role !== "assistant"
  );
  const mcp = await mcpListings(wire, session);
  const places: [string, unknown][] = [
    [
      "observations",
      [p!.first.observations, p!.steps.map((s) => s.observations)]
    ],
    ["tool schemas", [p!.first.tools, target.toolSchemas]],
    ["the transcript", transcript],
    ["the store (the model's view)", await collect(session.items.store())],
    ["events", await collect(session.items.events())],
    ["/frame", await session.frame()],
    [
      "OpenEnv frames",
      await openEnvFrames(wire, target.name, task, p!.actions)
    ],
    ["MCP tools/list", mcp.tools],
    ["MCP resources", [mcp.resources, mcp.reads]]
  ];
  const found = placesHolding(secrets, places);
  return row(
    "no leakage",
    found.length === 0
      ? undefined
      : `a value reset hid appears in ${found.join(", ")}`,
    `${secrets.length} hidden value(s) stayed out of observations, tools, transcript, store, events, /frame, OpenEnv frames and MCP listings (the hidden-store canary is a local check)`
  );
};
