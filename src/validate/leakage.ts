/** @module No leakage on a local session: a canary written to the hidden store, and whatever reset hid, stay out of all the model sees. */

import type { Environment } from "../environment/define-environment";
import type { JsonValue } from "../json";
import { createLocalSession } from "../runner/local-session";
import { playTogether, type TaskRef, textOf } from "./episode";
import { scripted } from "./policies";
import { type CheckRow, row } from "./report";
import { localSession } from "./target";

const CANARY_KEY = "__roost_validate_canary";

/** Strings and long numbers inside a value; short ones would match by chance. */
export const secretsIn = (value: JsonValue | undefined): string[] => {
  if (typeof value === "string") return value.length >= 4 ? [value] : [];
  if (typeof value === "number")
    return String(value).length >= 4 ? [String(value)] : [];
  if (Array.isArray(value)) return value.flatMap(secretsIn);
  if (value !== null && typeof value === "object")
    return Object.values(value).flatMap(secretsIn);
  return [];
};

/** The places (by name) whose text holds one of the secrets. */
export const placesHolding = (
  secrets: string[],
  places: [string, unknown][]
): string[] =>
  places
    .filter(([, value]) => {
      const text = typeof value === "string" ? value : textOf(value);
      return secrets.some((s) => text.includes(s));
    })
    .map(([place]) => place);

/**
 * A canary is written to the hidden store as each reset begins; neither it
 * nor anything the environment's reset hid may appear in what the model
 * sees: observations, tool schemas, the transcript's non-assistant
 * messages, the store's model view, or the updates tools emit. The canary
 * needs the environment's code: a server has no route that writes the
 * hidden store, so its leakage check looks for what reset hid alone.
 */
export const leakage = async (
  env: Environment,
  task: TaskRef,
  maxSteps: number
): Promise<CheckRow> => {
  const canary = `canary-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const wrapped: Environment = {
    ...env,
    reset: (args) => {
      args.ctx.hidden.set(CANARY_KEY, canary);
      return env.reset(args);
    }
  };
  const events: unknown[] = [];
  const session = createLocalSession(wrapped, {
    hooks: {
      onUpdate: (_call, update) => events.push(update),
      onResult: (_call, result) => events.push(result)
    }
  });
  const [p] = await playTogether(
    [localSession(session)],
    task,
    scripted(3),
    maxSteps
  );
  const hidden = (p!.fresh as { hidden: Record<string, JsonValue> }).hidden;
  const { [CANARY_KEY]: _, ...own } = hidden;
  const transcript = (
    session.parts.state.get("messages") as { role: string }[]
  ).filter((m) => m.role !== "assistant");
  const places: [string, unknown][] = [
    [
      "observations",
      [p!.first.observations, p!.steps.map((s) => s.observations)]
    ],
    ["tool schemas", [p!.first.tools, env.toolSchemas]],
    ["the transcript", transcript],
    ["the model's view", session.parts.environment.llmView()],
    ["events", events]
  ];
  // The first place is named: the transcript repeats the observations, so
  // a leak into them would always be named twice.
  const [byCanary] = placesHolding([canary], places);
  const [byOwn] = placesHolding(secretsIn(own), places);
  return row(
    "no leakage",
    byCanary !== undefined
      ? `the hidden store's canary appears in ${byCanary}`
      : byOwn !== undefined
        ? `a value reset hid appears in ${byOwn}`
        : undefined,
    `a hidden canary and ${secretsIn(own).length} hidden value(s) stayed out of observations, tools, transcript, model view and events`
  );
};
