/** @module One store entry as its SQLite rows: checked and serialised before a write, rebuilt after a read. */

import type { JsonObject } from "../json";
import type { Mapping } from "../protocol/map-objects";
import type { Entry, ObjectFingerprint } from "../store/types";
import { toRowText } from "./row-text";

export type EntryRow = {
  id: number;
  metadata: string;
  payload_type: string | null;
  mapping: string | null;
};

/** The columns every entry read selects. */
export const ENTRY_COLUMNS = "id, metadata, payload_type, mapping";

export interface ObjectRow {
  refId: string | null;
  hash: string | null;
  body: string;
}

/** Serialises and checks everything first, so a refused entry writes nothing. */
export const prepareEntry = (
  entry: Entry,
  prints: readonly (ObjectFingerprint | null)[]
) => {
  const metadata = toRowText(entry.metadata, "Entry metadata");
  const payloadType = entry.payloadType ?? null;
  const mapping =
    entry.mapping === undefined ? null : JSON.stringify(entry.mapping);
  const objects = entry.objects.map((object, i): ObjectRow => {
    const refId = typeof object._REF_ID === "string" ? object._REF_ID : null;
    const print = prints[i] ?? null;
    return {
      refId,
      hash: print !== null && refId !== null ? print.hash : null,
      body: toRowText(object, `objects[${i}]`, refId ?? "")
    };
  });
  return { metadata, payloadType, mapping, objects };
};

/** The entry a row and its objects hold; display fields absent rather than null, as the other backends keep them. */
export const entryOf = (row: EntryRow, objects: JsonObject[]): Entry => ({
  objects,
  metadata: JSON.parse(row.metadata) as JsonObject,
  ...(row.payload_type === null ? {} : { payloadType: row.payload_type }),
  ...(row.mapping === null
    ? {}
    : { mapping: JSON.parse(row.mapping) as Mapping })
});
