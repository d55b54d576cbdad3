/** @module How a result asks to be displayed: its payload type and field mapping, checked once for every way in. */

import { RoostError } from "../errors";
import { NAME_RE } from "../names";
import type { Mapping } from "../protocol/map-objects";

/**
 * Payload types the inspector draws; any other name is stored and passed on
 * for a frontend of your own, and drawn as JSON.
 * - `table`: one row per object, columns from the mapping (else every key).
 * - `document`: one card per object, from the mapping's `title`,
 *   `content` (or `text`), `author` and `date` fields.
 * - `default` (or none): the objects as JSON.
 */
export const PAYLOAD_TYPES = ["table", "document", "default"] as const;

/** What an entry keeps of how to show it; both absent for a plain result. */
export interface EntryDisplay {
  payloadType?: string;
  mapping?: Mapping;
}

const MAX_FIELDS = 100;
const MAX_FIELD_LENGTH = 256;

const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;

const invalid = (message: string, field: string): RoostError =>
  new RoostError("invalid_request", message, { field });

/**
 * A checked copy of a payload type and mapping, keeping only what was given.
 * Throws `invalid_request` naming the bad part, so a tool that yields a bad
 * result fails with a message the model can read, and nothing is stored.
 */
export const checkDisplay = (display: EntryDisplay): EntryDisplay => {
  const { payloadType, mapping } = display;
  const out: EntryDisplay = {};
  if (payloadType !== undefined) {
    if (typeof payloadType !== "string" || !NAME_RE.test(payloadType)) {
      throw invalid(
        `Invalid payloadType ${JSON.stringify(payloadType) ?? describe(payloadType)}: use 1 to 64 letters, digits, "_" or "-" (e.g. "table", "document").`,
        "payloadType"
      );
    }
    out.payloadType = payloadType;
  }
  if (mapping !== undefined) out.mapping = checkMapping(mapping);
  return out;
};

const checkMapping = (mapping: unknown): Mapping => {
  if (
    typeof mapping !== "object" ||
    mapping === null ||
    Array.isArray(mapping)
  ) {
    throw invalid(
      `mapping must be an object of { displayField: dataField } strings, not ${describe(mapping)}.`,
      "mapping"
    );
  }
  const fields = Object.entries(mapping);
  if (fields.length > MAX_FIELDS) {
    throw invalid(
      `mapping has ${fields.length} fields; the limit is ${MAX_FIELDS}.`,
      "mapping"
    );
  }
  const copy: Mapping = {};
  for (const [to, from] of fields) {
    if (to === "" || to.length > MAX_FIELD_LENGTH) {
      throw invalid(
        `mapping's display field names must be 1 to ${MAX_FIELD_LENGTH} characters.`,
        "mapping"
      );
    }
    if (typeof from !== "string") {
      throw invalid(
        `mapping.${to} must be a string naming a field of the objects (or "" to leave it out), not ${describe(from)}.`,
        `mapping.${to}`
      );
    }
    if (from.length > MAX_FIELD_LENGTH) {
      throw invalid(
        `mapping.${to} names a field longer than ${MAX_FIELD_LENGTH} characters.`,
        `mapping.${to}`
      );
    }
    Object.defineProperty(copy, to, {
      value: from,
      enumerable: true,
      writable: true,
      configurable: true
    });
  }
  return copy;
};
