/**
 * @module The Agents SDK contender: an Agent whose state is a list
 * `{ items }`, grown one object per call through the SDK's documented
 * `this.setState({ ...state, items: [...items, item] })`, called by clients
 * over the SDK's WebSocket RPC (`@callable()` methods).
 */

import { Agent, callable } from "agents";
import { type RowCount, RowMeter } from "../../src/storage/row-meter";
import type { Growth } from "../lib/growth";
import { type BenchObject, benchObject } from "../lib/objects";

export interface ListState {
  items: BenchObject[];
}

export class BenchAgent extends Agent<Cloudflare.Env, ListState> {
  override initialState: ListState = { items: [] };
  /** Installed by the first `bill` call, so the other scenarios run unmetered. */
  #meter: RowMeter | undefined;

  /**
   * The bill scenario's reading: rows this object's storage read and wrote
   * since the last call (the first installs the meter and answers nothing).
   */
  @callable()
  bill(): RowCount {
    this.#meter ??= new RowMeter(this.ctx.storage);
    return this.#meter.take();
  }

  /**
   * The measured call: stores object `n` (the object Roost's bench `put`
   * tool stores for the same `n`) and answers the item count.
   */
  @callable()
  append(n: number): number {
    const items = [...this.state.items, benchObject(n)];
    this.setState({ ...this.state, items });
    return items.length;
  }

  /**
   * Set-up only: appends objects `first` … `first + count - 1` in one
   * `setState`, and answers the size reached or, if SQLite refused the
   * state, the size refused (a refused state is not kept): an answer, not
   * an error, so the bench can find where the SDK's state row stops fitting.
   */
  @callable()
  grow(first: number, count: number): Growth {
    const added = Array.from({ length: count }, (_, i) =>
      benchObject(first + i)
    );
    const next = { ...this.state, items: [...this.state.items, ...added] };
    const bytes = JSON.stringify(next).length;
    try {
      this.setState(next);
    } catch (error) {
      return { items: next.items.length, bytes, error: String(error) };
    }
    return { items: next.items.length, bytes, error: null };
  }
}
