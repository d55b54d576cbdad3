/** @module What a multi-agent step adds to its answer and its events, and which events each agent sees. */

import * as z from "zod";
import type { Message } from "../messages/schema";
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

/**
 * On an event a multi-agent step made (a tool's start, result, progress
 * and end, a store change): the agent whose step it was, who alone of the
 * agents sees it, as a message tagged with an agent is that agent's.
 */
export const ownerField = () => ({ agent: NameSchema().optional() });

/** The events a multi-agent step tags with its agent (`ownerField`). */
export const OWNED_EVENTS: ReadonlySet<string> = new Set([
  "tool.started",
  "tool.finished",
  "result",
  "update",
  "store.changed"
]);

/** The game's shared record: every agent sees these. */
const SHARED_EVENTS: ReadonlySet<string> = new Set([
  "step",
  "step.aborted",
  "reset",
  "forked",
  "state.changed"
]);

/**
 * Whether an agent's credential is sent `event`: a message in its view
 * (its own or untagged), the shared record, or an event of its own step.
 * Anything else (another agent's, a model call, a tree run) is withheld,
 * so what a later event type carries stays private until it is placed.
 */
export const visibleTo = (
  event: { type: string; agent?: unknown; message?: { agent?: unknown } },
  agent: string
): boolean => {
  if (event.type === "message")
    return (event.message?.agent ?? agent) === agent;
  return SHARED_EVENTS.has(event.type) || event.agent === agent;
};

/** What `agent` sees of `messages`: its own and everyone's. */
export const viewOf = (
  messages: readonly Message[],
  agent: string
): Message[] =>
  messages.filter((m) => m.agent === undefined || m.agent === agent);
