/**
 * @module What the giant session holds, and how every object and message in
 * it is recognised again: the sizes are chosen so each write sits just under
 * one of the limits a write may reach (src/protocol/limits.ts).
 */

const KIB = 1024;
const MIB = 1024 * KIB;

/** The defaults a write must stay under (the e2e and bench workers use them). */
export const LIMITS = {
  requestBodyBytes: MIB,
  stringBytes: 256 * KIB,
  objectsPerResult: 1000
} as const;

/** The largest response any read may give (READ_BYTES.max). */
export const MAX_RESPONSE_BYTES = 4 * MIB;

/** How an entry's objects are made. */
export type ObjectKind = "regular" | "wide" | "huge";

/**
 * Bytes of an object's `pad` (its JSON is longer: the filler's quotes and
 * backslash are escaped). A regular 1000-object entry is a request of about
 * 1.01 MB; a wide one is just under the 1 MiB request limit, and stored with
 * its `_REF_ID`s it passes the 1 MiB default read budget, so it always comes
 * in parts; a huge object is one string just under the string limit, three
 * to an entry.
 */
const PAD_BYTES: Record<ObjectKind, number> = {
  regular: 940,
  wide: 972,
  huge: 255 * KIB
};

export interface EntryPlan {
  /** Position in its key's list. */
  index: number;
  kind: ObjectKind;
  objects: number;
}

export interface KeyPlan {
  /** Position in creation order, written into every object as `k`. */
  k: number;
  tool: string;
  name: string;
  entries: EntryPlan[];
}

const entries = (
  count: number,
  kind: ObjectKind,
  objects: number
): EntryPlan[] =>
  Array.from({ length: count }, (_, index) => ({ index, kind, objects }));

/**
 * The store: eight keys of 25 regular entries (200 × 1000 objects, about
 * 200 MB), then a key of wide entries and one of huge objects with an empty
 * entry among them. Names that are not integers, so a page's JSON object
 * keeps them in the order the server wrote them.
 */
export const STORE_PLAN: readonly KeyPlan[] = [
  ...["alpha", "beta", "gamma", "delta"].flatMap((tool, t) =>
    ["rows", "more"].map((name, n) => ({
      k: 2 * t + n,
      tool,
      name,
      entries: entries(25, "regular", 1000)
    }))
  ),
  { k: 8, tool: "wide", name: "rows", entries: entries(4, "wide", 1000) },
  {
    k: 9,
    tool: "huge",
    name: "blobs",
    entries: [
      { index: 0, kind: "huge", objects: 3 },
      { index: 1, kind: "huge", objects: 0 },
      { index: 2, kind: "huge", objects: 3 }
    ]
  }
];

/** Steps in the transcript, each an assistant message of three 250 KiB texts. */
export const STEPS = 300;
export const PARTS_PER_MESSAGE = 3;
const TEXT_BYTES = 250 * KIB;

/**
 * Filler with quotes, a backslash and two- and three-byte characters, so a
 * budget that counted characters or unescaped text would show.
 */
const UNIT = 'lorem ipsum "dolor" sit amet \\ consectetur é adipiscing € elit ';
const UNIT_BYTES = Buffer.byteLength(UNIT);

/** `head`, then filler to exactly `bytes` of UTF-8. */
const filled = (head: string, bytes: number): string => {
  const left = bytes - Buffer.byteLength(head);
  const units = Math.floor(left / UNIT_BYTES);
  return head + UNIT.repeat(units) + "x".repeat(left - units * UNIT_BYTES);
};

/** Object `i` of entry `e` of key `k`: each one different, so none is stored as a `[repeat]`. */
export const objectOf = (
  key: KeyPlan,
  entry: EntryPlan,
  i: number
): { k: number; e: number; i: number; pad: string } => ({
  k: key.k,
  e: entry.index,
  i,
  pad: filled(`${key.k}/${entry.index}/${i} `, PAD_BYTES[entry.kind])
});

/** What an entry is written with and read back with. */
export const metadataOf = (key: KeyPlan, entry: EntryPlan) => ({
  key: key.k,
  entry: entry.index,
  kind: entry.kind
});

/** Text part `p` of step `s`'s assistant message. */
export const textOf = (s: number, p: number): string =>
  filled(`step ${s} part ${p} `, TEXT_BYTES);

/** Step `s`'s action: an assistant message with no tool calls. */
export const actionOf = (s: number) => ({
  role: "assistant" as const,
  content: Array.from({ length: PARTS_PER_MESSAGE }, (_, p) => ({
    type: "text" as const,
    text: textOf(s, p)
  }))
});

/** All the store's objects, for the report. */
export const plannedObjects = (): number =>
  STORE_PLAN.reduce(
    (sum, key) => sum + key.entries.reduce((n, e) => n + e.objects, 0),
    0
  );
