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

/** One event's row: the same for a live frame and one read from the log. */
const eventRow = (frame: Frame): HTMLElement => {
  const step =
    frame.type === "step" &&
    branchFrom !== undefined &&
    typeof frame.step === "number"
      ? frame.step
      : undefined;
  return h(
    "li",
    {
      "data-seq": frame.seq,
      "data-type": frame.type,
      "data-episode": frame.episode
    },
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
  );
};

/**
 * A fork's `step` counts in the current episode, so a step of an earlier
 * one (before a reset, live or read from the log) loses its button: it
 * would fork the wrong step.
 */
const retireBranches = (): void => {
  const timeline = $("#timeline");
  const rows = timeline.querySelectorAll<HTMLElement>("li[data-episode]");
  const current = rows[rows.length - 1]?.dataset.episode;
  for (const button of timeline.querySelectorAll("button.branch")) {
    const row = button.closest<HTMLElement>("li");
    if (row?.dataset.episode !== current) button.remove();
  }
};

/** One row of the event timeline, newest last and kept in view. */
export const appendEvent = (frame: Frame): void => {
  const timeline = $("#timeline");
  timeline.append(eventRow(frame));
  if (frame.type === "reset") retireBranches();
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

const rowSeq = (row: Element): number =>
  Number((row as HTMLElement).dataset.seq ?? Number.NaN);

/**
 * Events read from the log, oldest first, put before every row with a
 * later seq: the socket's rows may already be there when the read ends.
 * A seq already shown is not shown again.
 */
export const placeHistory = (frames: readonly Frame[]): void => {
  const timeline = $("#timeline");
  const shown = new Set(
    [...timeline.querySelectorAll("li[data-seq]")].map(rowSeq)
  );
  const fresh = frames.filter((f) => !shown.has(Number(f.seq)));
  if (fresh.length === 0) return;
  const last = Number(fresh[fresh.length - 1]!.seq);
  const before =
    [...timeline.querySelectorAll("li[data-seq]")].find(
      (row) => rowSeq(row) > last
    ) ?? null;
  const atBottom =
    timeline.scrollTop + timeline.clientHeight >= timeline.scrollHeight - 4;
  const rows = document.createDocumentFragment();
  for (const frame of fresh) rows.append(eventRow(frame));
  timeline.insertBefore(rows, before);
  retireBranches();
  if (atBottom && before === null) timeline.scrollTop = timeline.scrollHeight;
};

/**
 * The timeline's first line while the log may hold older events than it
 * shows: a button that reads the window before them. `load` undefined
 * removes it.
 */
export const showEarlier = (
  firstShown: number,
  load: (() => void) | undefined
): void => {
  const timeline = $("#timeline");
  timeline.querySelector(":scope > li.earlier")?.remove();
  if (!load) return;
  timeline.prepend(
    h(
      "li",
      { class: "note earlier", "data-type": "note" },
      h(
        "button",
        {
          type: "button",
          title: `Reads the retained events before #${firstShown} from the session's log`,
          onclick: load
        },
        "load earlier events"
      )
    )
  );
};
