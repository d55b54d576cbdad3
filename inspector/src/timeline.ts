/** @module The event timeline and the transcript: rows appended as frames arrive, bounded on screen. */

import { $, h, short } from "./dom";
import type { Frame } from "./live";

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
      h("small", { class: "hint" }, short(frameSummary(frame), 140))
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

/** An assistant turn's tool calls as `name(arguments)`, however the arguments were encoded. */
const callsOf = (calls: unknown): { name: string; args: string }[] =>
  Array.isArray(calls)
    ? calls.map((call) => {
        const fn = (
          call as { function?: { name?: unknown; arguments?: unknown } }
        )?.function;
        const args = fn?.arguments;
        return {
          name: String(fn?.name ?? "?"),
          args: typeof args === "string" ? args : JSON.stringify(args ?? {})
        };
      })
    : [];

/** A transcript message at its index; one already shown (a replay) is skipped. */
export const addMessage = (message: unknown, index: number): void => {
  const m = message as {
    role?: string;
    content?: unknown;
    tool_calls?: unknown;
  };
  const list = $("#transcript");
  if (list.querySelector(`[data-index="${index}"]`)) return;
  list.append(
    h(
      "li",
      { value: index, "data-index": index },
      h("strong", {}, m.role ?? "?"),
      " ",
      m.content ? short(m.content, 300) : null,
      ...callsOf(m.tool_calls).map((c) =>
        h("span", { class: "call" }, `→ ${c.name}(${short(c.args, 160)})`)
      )
    )
  );
  while (list.childElementCount > MAX_TRANSCRIPT) {
    list.firstElementChild?.remove();
  }
};
