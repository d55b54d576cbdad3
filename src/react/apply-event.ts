/** @module How one event changes a `SessionView`: pure, and sharing every slice it leaves alone. */

import type { Message } from "../messages/schema";
import type { EventFrame, EventOf, KeyInfo } from "../protocol";
import type { SessionView } from "./session-view";

/** The view after `event` (never `step.aborted`: see `rollback`). */
export const applyEvent = (
  view: SessionView,
  event: EventFrame,
  maxEvents: number
): SessionView => {
  const next: SessionView = {
    ...view,
    lastSeq: event.seq,
    events: appendCapped(view.events, event, maxEvents)
  };
  switch (event.type) {
    case "state.changed":
      next.state = { ...view.state, [event.key]: event.value };
      break;
    case "message":
      next.messages = placeMessage(view.messages, event.index, event.message);
      break;
    case "result":
      next.keys = countResult(view.keys, event);
      break;
    case "store.changed":
      if (event.op === "remove" && event.index === undefined)
        next.keys = view.keys.filter(
          (k) => k.tool !== event.tool || k.name !== event.name
        );
      break;
    case "step":
      next.lastStep = event;
      if (view.status)
        next.status = {
          ...view.status,
          steps: event.step,
          reward: event.reward,
          return: view.status.return + event.reward,
          done: event.done,
          truncated: event.truncated
        };
      break;
    case "reset":
      // A new episode: its transcript, store and state start over; values
      // the reset writes arrive as their own events.
      next.messages = [];
      next.keys = [];
      next.state = {};
      next.lastStep = undefined;
      if (view.status)
        next.status = {
          ...view.status,
          episode: event.episode,
          steps: 0,
          reward: 0,
          return: 0,
          done: false,
          truncated: false
        };
      break;
  }
  return next;
};

/** What a rollback restores: the slices as they were before an event. */
export interface Checkpoint {
  seq: number;
  episode: number;
  view: Pick<
    SessionView,
    "state" | "keys" | "messages" | "status" | "lastStep"
  >;
}

export const checkpointOf = (
  view: SessionView,
  event: EventFrame
): Checkpoint => ({
  seq: event.seq,
  episode: event.episode,
  view: {
    state: view.state,
    keys: view.keys,
    messages: view.messages,
    status: view.status,
    lastStep: view.lastStep
  }
});

/**
 * The view as if the aborted mutation's events (its episode, from
 * `first_seq` on) never happened: the slices come back from the checkpoint
 * taken before its first event, and its events leave the list.
 */
export const rollback = (
  view: SessionView,
  aborted: EventOf<"step.aborted">,
  checkpoint: Checkpoint | undefined
): SessionView => ({
  ...view,
  ...(checkpoint?.view ?? {}),
  lastSeq: aborted.seq,
  events: view.events.filter(
    (e) => e.episode !== aborted.episode || e.seq < aborted.first_seq
  )
});

const appendCapped = <T>(list: readonly T[], item: T, max: number): T[] => {
  const next =
    list.length >= max ? list.slice(list.length - max + 1) : [...list];
  next.push(item);
  return next;
};

/** A message lands at its transcript index; a repeat of a known index keeps the old object. */
export const placeMessage = (
  messages: readonly Message[],
  index: number,
  message: Message
): readonly Message[] => {
  if (index < messages.length) return messages;
  return [...messages, message];
};

const countResult = (
  keys: readonly KeyInfo[],
  event: EventOf<"result">
): KeyInfo[] => {
  const at = keys.findIndex(
    (k) => k.tool === event.tool && k.name === event.name
  );
  const old = keys[at];
  const counted: KeyInfo = {
    tool: event.tool,
    name: event.name,
    entries: Math.max(old?.entries ?? 0, event.index + 1),
    objects: (old?.objects ?? 0) + event.objects.length
  };
  return at < 0
    ? [...keys, counted]
    : keys.map((k, i) => (i === at ? counted : k));
};
