/** @module The event timeline and the transcript: rows appended as frames arrive, bounded on screen. */

import { $, h, short } from "./dom";
import type { Frame } from "./live";
import { messageBody, messageLine } from "./message-view";

/** Timeline rows kept on screen; older ones are dropped (the log has them all). */
const MAX_TIMELINE = 2000;
/** Transcript messages kept on screen, the newest; `/messages` has them all. */
const MAX_TRANSCRIPT = 1000;

const frameSummary = (frame: Frame): unknown => {
  const { seq: _s, type: _t, episode: _e, at: _a, ...rest } = frame;
  return rest;
};

/** One row of the event timeline, newest last and kept in view. */
export const appendEvent = (frame: Frame): void => {
  const timeline = $("#timeline");
  timeline.append(
    h(
      "li",
      { "data-seq": frame.seq, "data-type": frame.type },
      `#${frame.seq} ${frame.type} `,
      h(
        "small",
        { class: "hint" },
        frame.type === "message"
          ? messageLine(frame.message)
          : short(frameSummary(frame), 140)
      )
    )
  );
  while (timeline.childElementCount > MAX_TIMELINE) {
    timeline.firstElementChild?.remove();
  }
  timeline.scrollTop = timeline.scrollHeight;
};

/** A line in the timeline that is not an event: a gap the log no longer holds. */
export const appendNote = (text: string): void => {
  const timeline = $("#timeline");
  timeline.append(h("li", { class: "note", "data-type": "note" }, text));
  timeline.scrollTop = timeline.scrollHeight;
};

/** A transcript message at its index; one already shown (a replay) is skipped. */
export const addMessage = (message: unknown, index: number): void => {
  const role = (message as { role?: unknown } | null)?.role;
  const list = $("#transcript");
  if (list.querySelector(`li[data-index="${index}"]`)) return;
  list.append(
    h(
      "li",
      {
        value: index,
        "data-index": index,
        "data-role": typeof role === "string" ? role : undefined
      },
      h("strong", {}, typeof role === "string" ? role : "?"),
      " ",
      ...messageBody(message, index, list)
    )
  );
  while (list.childElementCount > MAX_TRANSCRIPT) {
    list.firstElementChild?.remove();
  }
};
