/** @module The event timeline: rows appended as frames arrive, bounded on screen. */

import { $, h, short } from "./dom";
import type { Frame } from "./live";
import { messageLine } from "./message-view";

/** Timeline rows kept on screen; older ones are dropped (the log has them all). */
const MAX_TIMELINE = 2000;

const frameSummary = (frame: Frame): unknown => {
  const { seq: _s, type: _t, episode: _e, at: _a, ...rest } = frame;
  return rest;
};

/** What a step's "branch from here" does (main.ts: fork at that step and open the copy). */
let branchFrom: ((step: number) => void) | undefined;
export const onBranch = (handler: (step: number) => void): void => {
  branchFrom = handler;
};

/** One row of the event timeline, newest last and kept in view. */
export const appendEvent = (frame: Frame): void => {
  const timeline = $("#timeline");
  const step =
    frame.type === "step" &&
    branchFrom !== undefined &&
    typeof frame.step === "number"
      ? frame.step
      : undefined;
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
      ),
      ...(step === undefined
        ? []
        : [
            " ",
            h(
              "button",
              {
                type: "button",
                class: "branch",
                "data-step": step,
                title: `Fork the episode as it stood right after step ${step} (a branchable environment's), and open the copy`,
                onclick: () => branchFrom?.(step)
              },
              "branch from here"
            )
          ])
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
