/**
 * @module The transcript on screen: the newest messages first, older ones
 * on request, live ones as they arrive, each drawn once at its index.
 *
 * A transcript can be far larger than a page should hold (300 messages of
 * 750 KiB is 225 MB), and what a reader of a long session wants first is
 * where it stands now. So a transcript that fits one page of `/messages` is
 * shown whole, as before; a longer one shows its newest messages, about
 * `TAIL_BYTES` of them read newest chunk first, with "Load older messages"
 * reading the next `TAIL_BYTES` back. At most `MAX_TRANSCRIPT` rows are
 * kept; live messages push the oldest out. Long texts are drawn cut, and
 * "show all" reads the one message again rather than holding every full
 * text in the page.
 */

import type { Credentials } from "./api";
import { $, fill } from "./dom";
import { contentText, messageRow, PREVIEW_CHARS } from "./message-view";
import { readMessage, readPage, readRange } from "./transcript-reads";

/** Transcript messages kept on screen, the newest; `/messages` has them all. */
export const MAX_TRANSCRIPT = 1000;
/** Bytes of messages one load reads: the first view, and each "older". */
export const TAIL_BYTES = 2 * 1024 * 1024;

/** A message's size on the wire, near enough to budget reads by. */
const sizeOf = (message: unknown): number => JSON.stringify(message).length;

export class Transcript {
  readonly #list = $<HTMLOListElement>("#transcript");
  readonly #older = $<HTMLButtonElement>("#older");
  #session: Credentials | undefined;
  /** Bumped by attach and reset: a load for an older one drops what it reads. */
  #generation = 0;
  /** Loads run one after another, so none reads what another is reading. */
  #queue: Promise<void> = Promise.resolve();
  #busy = 0;
  #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
    this.#older.addEventListener("click", () =>
      this.#enqueue((g) => this.#loadBack(this.#first(), g))
    );
    this.#list.addEventListener("click", (event) => {
      const button = (event.target as Element).closest("button.show-all");
      if (button instanceof HTMLButtonElement) void this.#toggle(button);
    });
  }

  /** Shows `session`'s transcript: whole when short, else its newest messages. */
  attach(session: Credentials): void {
    this.#session = session;
    this.#clear();
    this.#enqueue((g) => this.#open(g));
  }

  /** A new episode: its transcript starts empty, and arrives live. */
  reset(): void {
    this.#clear();
  }

  /** After a (re)connect: what was appended while no socket was open. */
  catchUp(): void {
    this.#enqueue((g) => this.#catchUp(g));
  }

  /** A message at its index; one already shown (a replay) is skipped. */
  add(message: unknown, index: number): void {
    const list = this.#list;
    let after = list.lastElementChild as HTMLElement | null;
    while (after && Number(after.dataset.index) > index) {
      after = after.previousElementSibling as HTMLElement | null;
    }
    if (after && Number(after.dataset.index) === index) return;
    const row = messageRow(message, index, list);
    if (after) after.after(row);
    else list.prepend(row);
    while (list.childElementCount > MAX_TRANSCRIPT) {
      list.firstElementChild?.remove();
    }
    this.#renderOlder();
  }

  #clear(): void {
    this.#generation++;
    fill(this.#list);
    this.#renderOlder();
  }

  #enqueue(load: (generation: number) => Promise<void>): void {
    const generation = this.#generation;
    this.#busy++;
    this.#renderOlder();
    this.#queue = this.#queue
      .then(() =>
        generation === this.#generation ? load(generation) : undefined
      )
      .catch((error) => {
        if (generation === this.#generation) this.#onError(error);
      })
      .finally(() => {
        this.#busy--;
        this.#renderOlder();
      });
  }

  async #open(generation: number): Promise<void> {
    const s = this.#session!;
    const page = await readPage(s, 0);
    if (generation !== this.#generation) return;
    if (page.next_cursor === undefined) {
      page.messages.forEach((m, i) => {
        this.add(m, i);
      });
      return;
    }
    await this.#loadBack(page.total, generation);
  }

  /**
   * Messages before `end`, newest chunk first, until `TAIL_BYTES` are read
   * or the list is full. A chunk is read forward (pages go oldest first);
   * the next chunk's size is what the bytes left would hold at the sizes
   * seen so far, at most twice the last, so one chunk of large messages
   * never reads much past the budget.
   */
  async #loadBack(end: number, generation: number): Promise<void> {
    const s = this.#session!;
    let bytes = 0;
    let count = 0;
    let chunk = 1;
    let hi = end;
    while (hi > 0 && bytes < TAIL_BYTES) {
      const room = MAX_TRANSCRIPT - this.#list.childElementCount;
      if (room <= 0) return;
      const lo = Math.max(0, hi - Math.min(chunk, room));
      await readRange(s, lo, hi, (messages, first) => {
        if (generation !== this.#generation) return false;
        // Older rows go in above: the reader stays on the rows in view
        // (at first, the newest, at the bottom).
        const list = this.#list;
        const fromBottom = list.scrollHeight - list.scrollTop;
        messages.forEach((m, i) => {
          this.add(m, first + i);
          bytes += sizeOf(m);
        });
        list.scrollTop = list.scrollHeight - fromBottom;
        count += messages.length;
        return true;
      });
      if (generation !== this.#generation || count === 0) return;
      const left = TAIL_BYTES - bytes;
      chunk = Math.max(
        1,
        Math.min(2 * (hi - lo), Math.floor(left / (bytes / count)))
      );
      hi = lo;
    }
  }

  /**
   * From the newest message shown to the end. A gap of more than
   * `TAIL_BYTES` (a long time offline) is not read through: the list
   * starts over from the newest messages instead.
   */
  async #catchUp(generation: number): Promise<void> {
    const s = this.#session!;
    const last = this.#list.lastElementChild as HTMLElement | null;
    const from = last ? Number(last.dataset.index) + 1 : 0;
    let bytes = 0;
    let behind = false;
    await readRange(s, from, undefined, (messages, first) => {
      if (generation !== this.#generation) return false;
      messages.forEach((m, i) => {
        this.add(m, first + i);
        bytes += sizeOf(m);
      });
      behind = bytes > TAIL_BYTES;
      return !behind;
    });
    if (behind && generation === this.#generation) {
      this.#clear();
      await this.#open(this.#generation);
    }
  }

  /** Index of the oldest message shown (0 when none is). */
  #first(): number {
    const first = this.#list.firstElementChild as HTMLElement | null;
    return first ? Number(first.dataset.index) : 0;
  }

  #renderOlder(): void {
    const before = this.#first();
    const full = this.#list.childElementCount >= MAX_TRANSCRIPT;
    this.#older.hidden = before === 0;
    this.#older.disabled = this.#busy > 0 || full;
    this.#older.textContent = full
      ? `${before} older messages (the page keeps the newest ${MAX_TRANSCRIPT})`
      : `Load older messages (${before} before #${before})`;
  }

  /** "show all" reads the message again; "show less" lets its text go. */
  async #toggle(button: HTMLButtonElement): Promise<void> {
    const row = button.closest("li");
    const content = row?.querySelector(".content");
    const s = this.#session;
    if (!row || !content || !s) return;
    if (button.dataset.expanded === "true") {
      content.textContent = `${content.textContent?.slice(0, PREVIEW_CHARS)}…`;
      button.dataset.expanded = "false";
      button.textContent = button.dataset.label ?? "show all";
      return;
    }
    button.disabled = true;
    try {
      const message = (await readMessage(s, Number(row.dataset.index))) as {
        content?: unknown;
      };
      content.textContent = contentText(message?.content);
      button.dataset.expanded = "true";
      button.textContent = "show less";
    } catch (error) {
      this.#onError(error);
    } finally {
      button.disabled = false;
    }
  }
}
