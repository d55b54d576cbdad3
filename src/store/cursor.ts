/** @module The opaque paging cursor of the environment store: where the next page starts. */

import * as z from "zod";
import { RoostError } from "../errors";
import { lazy } from "../lazy";

/**
 * A cursor names the next entry by key and position rather than by a global
 * offset, so keys created while a client pages do not shift what it sees.
 */
const CursorSchema = lazy(() =>
  z.tuple(
    [z.string(), z.string(), z.number().int().nonnegative()],
    z.number().int().nonnegative()
  )
);

export interface CursorPosition {
  tool: string;
  name: string;
  index: number;
  /** The first object to read of that entry: a page the byte budget cut ends inside it. */
  object: number;
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

// Cursors without an object (pages before byte budgets) still decode.
export const encodeCursor = (position: CursorPosition): string =>
  toBase64Url(
    JSON.stringify(
      position.object === 0
        ? [position.tool, position.name, position.index]
        : [position.tool, position.name, position.index, position.object]
    )
  );

export const decodeCursor = (cursor: string): CursorPosition => {
  let parsed: z.infer<ReturnType<typeof CursorSchema>> | undefined;
  try {
    if (/^[A-Za-z0-9_-]+$/.test(cursor)) {
      const result = CursorSchema().safeParse(
        JSON.parse(fromBase64Url(cursor))
      );
      if (result.success) parsed = result.data;
    }
  } catch {
    // Undecodable text falls through to the one error below.
  }
  if (parsed === undefined || parsed.length > 4) {
    throw new RoostError(
      "invalid_request",
      "Invalid cursor: pass back the next_cursor of a previous page unchanged."
    );
  }
  const [tool, name, index, object = 0] = parsed;
  return { tool, name, index, object };
};
