/**
 * @module Brings a newly arrived card into view inside the box that
 * scrolls it, and moves nothing else: not the page, not the chat.
 */

/** The nearest ancestor that scrolls vertically, if any. */
const scrollBoxOf = (el: HTMLElement): HTMLElement | undefined => {
  for (let box = el.parentElement; box; box = box.parentElement) {
    const overflow = getComputedStyle(box).overflowY;
    if (overflow === "auto" || overflow === "scroll") return box;
  }
  return undefined;
};

/**
 * Scrolls `el`'s box just enough to show all of `el`, or its top when it is
 * taller than the box. Without a scrolling box (the phone layout, where the
 * panels follow the chat down the page) nothing moves: scrolling the page
 * would pull the reader away from the conversation they are following; the
 * chat's "→ Results" link takes them there.
 */
export const reveal = (el: HTMLElement): void => {
  const box = scrollBoxOf(el);
  if (box === undefined) return;
  const top =
    el.getBoundingClientRect().top -
    box.getBoundingClientRect().top +
    box.scrollTop;
  const bottom = top + el.offsetHeight;
  const shown = {
    top: box.scrollTop,
    bottom: box.scrollTop + box.clientHeight
  };
  if (bottom > shown.bottom) {
    box.scrollTo({ top: Math.min(top, bottom - box.clientHeight) });
  } else if (top < shown.top) {
    box.scrollTo({ top });
  }
};

/** What a reader does to scroll a box themselves. */
const READER_MOVES = ["wheel", "touchstart", "pointerdown", "keydown"] as const;

/**
 * Reveals `el`, and again whenever it or the panels of its box change size
 * afterwards (its table filling in, the tree and the state above it growing
 * as the run goes on): one reveal at arrival could leave it pushed below the
 * fold, or scrolled away by the browser. It stops when the reader scrolls
 * the box themselves, or when the answered cleanup runs (a newer card
 * arrived).
 */
export const revealWhileSettling = (el: HTMLElement): (() => void) => {
  reveal(el);
  const box = scrollBoxOf(el);
  if (box === undefined || typeof ResizeObserver === "undefined")
    return () => {};
  const observer = new ResizeObserver(() => reveal(el));
  observer.observe(el);
  for (const child of box.children) observer.observe(child);
  // The box scrolled by something other than the reader (the browser's
  // scroll anchoring as panels above change): show the card again. A
  // reveal's own scroll finds it shown, so this does not loop.
  let frame = 0;
  const onScroll = () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => reveal(el));
  };
  box.addEventListener("scroll", onScroll, { passive: true });
  const stop = () => {
    observer.disconnect();
    cancelAnimationFrame(frame);
    box.removeEventListener("scroll", onScroll);
    for (const type of READER_MOVES) box.removeEventListener(type, stop);
  };
  for (const type of READER_MOVES)
    box.addEventListener(type, stop, { passive: true });
  return stop;
};
