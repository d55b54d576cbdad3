/**
 * @module The environment as a tree (tool → name → counts) and one key's
 * objects in a paged table. Entries are read only as far as the page shown
 * needs, and an entry that comes in parts (larger than a read's byte
 * budget) is joined back into one before it is drawn.
 */

import { type Credentials, sessionApi } from "./api";
import { fill, h } from "./dom";
import { type EntryPart, joinEntries } from "./entry-parts";
import { drawRows, type Entry } from "./payload-view";

/** Rows on one page: the table never renders more, whatever the store holds. */
export const PAGE_ROWS = 100;

interface KeyInfo {
  tool: string;
  name: string;
  entries: number;
  objects: number;
}

export class StoreView {
  readonly element = h("div", { class: "store" });
  readonly #tree = h("ul", { class: "tree", "data-testid": "store-tree" });
  readonly #table = h("div", { class: "table-wrap" });
  #keys = new Map<string, KeyInfo>();
  /** Bumped by every change of the keys: only the newest read of them lands. */
  #keysGeneration = 0;
  #session: Credentials | undefined;
  #selected: { tool: string; name: string } | undefined;
  #page = 0;
  #entries: Entry[] = [];
  #cursor: string | undefined;
  #exhausted = false;
  /** Bumped by every reload: a fetch that returns to an older one is dropped. */
  #generation = 0;
  #burst: ReturnType<typeof setTimeout> | undefined;
  #tableStale = false;
  #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
    this.element.append(this.#tree, this.#table);
  }

  attach(session: Credentials): void {
    this.#session = session;
    this.#generation++;
    this.#keysGeneration++;
    this.#keys.clear();
    this.#selected = undefined;
    this.#renderTree();
    fill(this.#table);
  }

  /** The snapshot's keys; a cut snapshot's rest is read from `nextCursor`. */
  setKeys(keys: KeyInfo[], nextCursor?: string): void {
    this.#keysGeneration++;
    this.#keys = new Map(keys.map((k) => [`${k.tool}/${k.name}`, { ...k }]));
    this.#renderTree();
    if (nextCursor !== undefined) void this.#readKeys(keys, nextCursor);
    if (this.#selected) void this.#reload();
  }

  /**
   * A live change. Counts are fetched again (a replace or a remove does not
   * say how many objects went) and the open table reloads if its key
   * changed — once per burst: every entry streams a `result` and a
   * `store.changed`, and a run streams many.
   */
  onEvent(type: string, frame: Record<string, unknown>): void {
    if (type !== "result" && type !== "store.changed") return;
    const selected = this.#selected;
    if (
      selected &&
      selected.tool === frame.tool &&
      selected.name === frame.name
    ) {
      this.#tableStale = true;
    }
    clearTimeout(this.#burst);
    this.#burst = setTimeout(() => {
      if (this.#tableStale) void this.#reload();
      this.#tableStale = false;
      void this.#readKeys([]);
    }, 50);
  }

  /** Every key from `cursor` on, page by page, after the `known` ones. */
  async #readKeys(known: KeyInfo[], cursor?: string): Promise<void> {
    const session = this.#session;
    const generation = ++this.#keysGeneration;
    if (!session) return;
    const keys = [...known];
    try {
      let next = cursor;
      do {
        const q =
          next === undefined ? "" : `?cursor=${encodeURIComponent(next)}`;
        const page = await sessionApi<{
          keys: KeyInfo[];
          next_cursor?: string;
        }>(session, "GET", `/environment/keys${q}`);
        // Another session, a reset or a newer read came meanwhile.
        if (generation !== this.#keysGeneration) return;
        keys.push(...page.keys);
        next = page.next_cursor;
      } while (next !== undefined);
      this.#keys = new Map(keys.map((k) => [`${k.tool}/${k.name}`, k]));
      this.#renderTree();
    } catch (error) {
      if (generation === this.#keysGeneration) this.#onError(error);
    }
  }

  #renderTree(): void {
    const byTool = new Map<string, KeyInfo[]>();
    for (const key of this.#keys.values()) {
      byTool.set(key.tool, [...(byTool.get(key.tool) ?? []), key]);
    }
    fill(
      this.#tree,
      ...(byTool.size === 0
        ? [h("li", { class: "hint" }, "The environment is empty.")]
        : [...byTool].map(([tool, keys]) =>
            h(
              "li",
              {},
              h("span", { class: "tool" }, tool),
              h(
                "ul",
                {},
                ...keys.map((k) =>
                  h(
                    "li",
                    {},
                    h(
                      "button",
                      {
                        class: "link",
                        "data-key": `${k.tool}/${k.name}`,
                        onclick: () => {
                          this.#selected = { tool: k.tool, name: k.name };
                          this.#page = 0;
                          void this.#reload();
                        }
                      },
                      `${k.name} — ${k.entries} entries, ${k.objects} objects`
                    )
                  )
                )
              )
            )
          ))
    );
  }

  async #reload(): Promise<void> {
    this.#generation++;
    this.#entries = [];
    this.#cursor = undefined;
    this.#exhausted = false;
    await this.#show();
  }

  /** Fetches entries until the page's objects are loaded (or none are left). */
  async #show(): Promise<void> {
    const session = this.#session;
    const selected = this.#selected;
    if (!session || !selected) return;
    const generation = this.#generation;
    const end = (this.#page + 1) * PAGE_ROWS;
    try {
      while (!this.#exhausted && this.#objectCount() < end) {
        const q = new URLSearchParams({
          tool: selected.tool,
          name: selected.name,
          limit: "10",
          ...(this.#cursor ? { cursor: this.#cursor } : {})
        });
        const page = await sessionApi<{
          entries: EntryPart[];
          next_cursor?: string;
        }>(session, "GET", `/environment?${q}`);
        // A reload started while this page was in flight owns the table.
        if (generation !== this.#generation) return;
        joinEntries(this.#entries, page.entries);
        this.#cursor = page.next_cursor;
        this.#exhausted = page.next_cursor === undefined;
      }
    } catch (error) {
      if (generation === this.#generation) this.#onError(error);
      return;
    }
    const all = this.#entries.flatMap((e) =>
      e.objects.map((o) => ({ entry: e.index, object: o }))
    );
    const rows = all.slice(this.#page * PAGE_ROWS, end);
    const last = this.#exhausted && end >= all.length;
    const total = this.#keys.get(`${selected.tool}/${selected.name}`)?.objects;
    fill(
      this.#table,
      h(
        "div",
        { class: "pager" },
        h("strong", {}, `${selected.tool} / ${selected.name}`),
        h(
          "button",
          {
            disabled: this.#page === 0,
            onclick: () => {
              this.#page--;
              this.#generation++;
              void this.#show();
            }
          },
          "‹ prev"
        ),
        h(
          "span",
          { "data-testid": "page" },
          `rows ${this.#page * PAGE_ROWS + 1}–${this.#page * PAGE_ROWS + rows.length}` +
            (total === undefined ? "" : ` of ${total}`)
        ),
        h(
          "button",
          {
            disabled: last,
            onclick: () => {
              this.#page++;
              this.#generation++;
              void this.#show();
            }
          },
          "next ›"
        )
      ),
      ...drawRows(rows, this.#entries)
    );
  }

  #objectCount(): number {
    return this.#entries.reduce((n, e) => n + e.objects.length, 0);
  }
}
