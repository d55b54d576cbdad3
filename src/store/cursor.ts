/** @module The opaque paging cursor of the environment store: where the next page starts. */

import * as z from "zod";
import { RoostError } from "../errors";

/**
 * A cursor names the next entry by key and position rather than by a global
 * offset, so keys created while a client pages do not shift what it sees.
 */
const CursorSchema = z.tuple([
  z.string(),
  z.string(),
  z.number().int().nonnegative()
]);

export interface CursorPosition {
  tool: string;
  name: string;
  index: number;
}

const toBase64Url = (text: string): string => {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary)
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
};

const fromBase64Url = (text: string): string => {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  return new TextDecoder().decode(bytes);
};

export const encodeCursor = (position: CursorPosition): string =>
  toBase64Url(JSON.stringify([position.tool, position.name, position.index]));

export const decodeCursor = (cursor: string): CursorPosition => {
  let parsed: z.infer<typeof CursorSchema> | undefined;
  try {
    if (/^[A-Za-z0-9_-]+$/.test(cursor)) {
      const result = CursorSchema.safeParse(JSON.parse(fromBase64Url(cursor)));
      if (result.success) parsed = result.data;
    }
  } catch {
    // Undecodable text falls through to the one error below.
  }
  if (parsed === undefined) {
    throw new RoostError(
      "invalid_request",
      "Invalid cursor: pass back the next_cursor of a previous page unchanged."
    );
  }
  const [tool, name, index] = parsed;
  return { tool, name, index };
};
