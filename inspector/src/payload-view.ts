/**
 * @module A page of a store key's objects, drawn by payload type: a `table`
 * entry as a table of its mapped columns, a `document` entry as cards, and
 * everything else as plain rows. Text only: no value is ever parsed as markup.
 */

import { mapObjects, mappedFields } from "../../src/protocol/map-objects";
import { h, short } from "./dom";

export interface Entry {
  index: number;
  objects: Record<string, unknown>[];
  payload_type?: string;
  mapping?: Record<string, string>;
}

export type Row = { entry: number; object: Record<string, unknown> };

/** Rows of one entry drawn by its payload type, or a run of plain rows drawn as one table. */
interface Block {
  entry?: Entry;
  rows: Row[];
}

/** Payload types drawn by type; every other entry is a plain row of the objects table. */
const TYPED = new Set(["table", "document"]);

const typed = (entry: Entry): boolean =>
  entry.payload_type !== undefined && TYPED.has(entry.payload_type);

/** A page's rows cut where an entry drawn by its type starts or ends. */
const blocks = (rows: Row[], byIndex: Map<number, Entry>): Block[] => {
  const out: Block[] = [];
  for (const row of rows) {
    const entry = byIndex.get(row.entry);
    const own = entry !== undefined && typed(entry) ? entry : undefined;
    const last = out.at(-1);
    if (last !== undefined && last.entry === own) {
      last.rows.push(row);
    } else out.push({ ...(own ? { entry: own } : {}), rows: [row] });
  }
  return out;
};

/** A field's value as text: strings as they are, the rest as JSON. Never markup. */
const asText = (value: unknown): string =>
  typeof value === "string" ? value : JSON.stringify(value);

/** The objects as plain rows, every key a column, as the store holds them. */
const objectsTable = (rows: Row[]) => {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r.object)))];
  return h(
    "table",
    { "data-testid": "objects" },
    h(
      "thead",
      {},
      h("tr", {}, h("th", {}, "entry"), ...columns.map((c) => h("th", {}, c)))
    ),
    h(
      "tbody",
      {},
      ...rows.map((r) =>
        h(
          "tr",
          {},
          h("td", {}, r.entry),
          ...columns.map((c) => h("td", {}, short(r.object[c] ?? "", 80)))
        )
      )
    )
  );
};

/** A `table` entry: columns from its mapping, else every key its objects have. */
const payloadTable = (entry: Entry, rows: Row[]) => {
  const shown = mapObjects(
    rows.map((r) => r.object),
    entry.mapping
  );
  const columns = entry.mapping
    ? mappedFields(entry.mapping)
    : [...new Set(shown.flatMap((o) => Object.keys(o)))];
  return h(
    "table",
    {
      class: "payload",
      "data-testid": "payload-table",
      "data-entry": entry.index
    },
    h("caption", {}, `entry ${entry.index} · table`),
    h("thead", {}, h("tr", {}, ...columns.map((c) => h("th", {}, c)))),
    h(
      "tbody",
      {},
      ...shown.map((o) =>
        h(
          "tr",
          {},
          ...columns.map((c) =>
            h("td", {}, Object.hasOwn(o, c) ? short(o[c], 80) : "")
          )
        )
      )
    )
  );
};

/** A `document` entry: a card per object from `title`, `content` (or `text`), `author` and `date`. */
const payloadDocuments = (entry: Entry, rows: Row[]) => {
  const shown = mapObjects(
    rows.map((r) => r.object),
    entry.mapping
  );
  const field = (o: Record<string, unknown>, ...names: string[]) => {
    const name = names.find((n) => Object.hasOwn(o, n) && o[n] != null);
    return name === undefined ? undefined : asText(o[name]);
  };
  return h(
    "div",
    {
      class: "payload",
      "data-testid": "payload-documents",
      "data-entry": entry.index
    },
    h("div", { class: "hint" }, `entry ${entry.index} · documents`),
    ...shown.map((o) => {
      const byline = [field(o, "author"), field(o, "date")].filter(
        (t) => t !== undefined
      );
      return h(
        "article",
        { class: "doc" },
        h("h4", {}, field(o, "title") ?? "(untitled)"),
        byline.length > 0 ? h("small", {}, byline.join(" · ")) : null,
        h("p", {}, short(field(o, "content", "text") ?? "", 2000))
      );
    })
  );
};

const drawBlock = (block: Block) => {
  const { entry, rows } = block;
  if (entry === undefined) return objectsTable(rows);
  return entry.payload_type === "table"
    ? payloadTable(entry, rows)
    : payloadDocuments(entry, rows);
};

/** The page's rows as tables and cards, in store order; an empty page is an empty objects table. */
export const drawRows = (rows: Row[], entries: Entry[]) => {
  const byIndex = new Map(entries.map((e) => [e.index, e]));
  const drawn = blocks(rows, byIndex).map(drawBlock);
  return drawn.length > 0 ? drawn : [objectsTable([])];
};
