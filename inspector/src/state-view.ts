/**
 * @module The typed state on screen: from the socket's snapshot (and from
 * `GET …/state?cursor=` for what a cut snapshot left out), then live from
 * `state.changed` frames. A state of megabytes is drawn cut, with "show
 * all", so each change does not lay out megabytes of text.
 */

import { type Credentials, sessionApi } from "./api";
import { h } from "./dom";

/** Characters of the state's JSON drawn before "show all". */
export const STATE_CHARS = 20_000;

interface StatePage {
  state: Record<string, unknown>;
  next_cursor?: string;
}

export class StateView {
  readonly #pre: HTMLElement;
  readonly #more = h("button", { type: "button", class: "link", hidden: true });
  #values: Record<string, unknown> = {};
  #session: Credentials | undefined;
  /** Changes that arrived while a read was in flight, applied over what it read. */
  #during: [string, unknown][] | undefined;
  #generation = 0;
  #expanded = false;
  #scheduled = false;
  #onError: (error: unknown) => void;

  constructor(pre: HTMLElement, onError: (error: unknown) => void) {
    this.#pre = pre;
    this.#onError = onError;
    pre.after(this.#more);
    this.#more.addEventListener("click", () => {
      this.#expanded = !this.#expanded;
      this.#render();
    });
  }

  attach(session: Credentials): void {
    this.#session = session;
    this.#generation++;
    this.#values = {};
    this.#expanded = false;
    this.#schedule();
  }

  /** The snapshot's state; a cut one is read on from `nextCursor`. */
  snapshot(state: Record<string, unknown>, nextCursor?: string): void {
    this.#generation++;
    this.#values = { ...state };
    this.#schedule();
    if (nextCursor !== undefined) void this.#read(nextCursor, false);
  }

  change(key: string, value: unknown): void {
    this.#values[key] = value;
    this.#during?.push([key, value]);
    this.#schedule();
  }

  /**
   * A reset puts the state back to its defaults without a frame per key,
   * so the state is read again; changes that arrive meanwhile are applied
   * on top in order, which ends on the newest value whatever the read saw.
   */
  reload(): void {
    this.#generation++;
    void this.#read(undefined, true);
  }

  /** Pages of `/state` from `cursor`: the whole state, or the rest of a snapshot's. */
  async #read(cursor: string | undefined, whole: boolean): Promise<void> {
    const s = this.#session;
    const generation = this.#generation;
    if (!s) return;
    const during: [string, unknown][] = [];
    this.#during = during;
    const read: Record<string, unknown> = {};
    try {
      let next = cursor;
      do {
        const q =
          next === undefined ? "" : `?cursor=${encodeURIComponent(next)}`;
        const page = await sessionApi<StatePage>(s, "GET", `/state${q}`);
        if (generation !== this.#generation) return;
        Object.assign(read, page.state);
        next = page.next_cursor;
      } while (next !== undefined);
    } catch (error) {
      if (generation === this.#generation) this.#onError(error);
      return;
    } finally {
      if (this.#during === during) this.#during = undefined;
    }
    this.#values = whole ? read : { ...this.#values, ...read };
    for (const [key, value] of during) this.#values[key] = value;
    this.#schedule();
  }

  /** One draw per burst of frames. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#render();
    });
  }

  #render(): void {
    const text = JSON.stringify(this.#values, null, 1);
    const cut = text.length > STATE_CHARS;
    this.#pre.textContent =
      cut && !this.#expanded ? `${text.slice(0, STATE_CHARS)}…` : text;
    this.#more.hidden = !cut;
    this.#more.textContent = this.#expanded
      ? "show less"
      : `show all ${text.length.toLocaleString("en")} characters`;
  }
}
