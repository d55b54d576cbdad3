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

/** How long a new card is kept in view while the column around it settles. */
const SETTLE_MS = 1500;

/**
 * Reveals `el`, and again whenever it or the panels of its box change size
 * in the moment after (its table filling in, the tree above it growing):
 * one reveal at arrival could leave it pushed below the fold. Answers the
 * cleanup.
 */
export const revealWhileSettling = (el: HTMLElement): (() => void) => {
  reveal(el);
  const box = scrollBoxOf(el);
  if (box === undefined || typeof ResizeObserver === "undefined")
    return () => {};
  const observer = new ResizeObserver(() => reveal(el));
  observer.observe(el);
  for (const child of box.children) observer.observe(child);
  const stop = setTimeout(() => observer.disconnect(), SETTLE_MS);
  return () => {
    clearTimeout(stop);
    observer.disconnect();
  };
};
