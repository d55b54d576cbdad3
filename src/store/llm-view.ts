/** @module The environment store as a model reads it: compact JSON, newest first, under a byte cap. */

import { utf8Length } from "../json";
import type { LocatedEntry, StoreBackend } from "./types";

/** The key of the truncation note; brackets keep it apart from every valid tool name. */
export const TRUNCATED_KEY = "[truncated]";

interface Piece {
  tool: string;
  name: string;
  text: string;
  objects: number;
}

const plural = (n: number, one: string, many: string): string =>
  `${n} ${n === 1 ? one : many}`;

const noteText = (entries: number, objects: number): string =>
  `${plural(entries, "older entry", "older entries")} (${plural(objects, "object", "objects")}) not shown; page the store to read them.`;

const noteJson = (entries: number, objects: number): string =>
  `${JSON.stringify(TRUNCATED_KEY)}:${JSON.stringify(noteText(entries, objects))}`;

/** Pieces newest first until one more would pass `budget`; reads the backend in growing batches. */
const takeNewest = (
  backend: StoreBackend,
  budget: number,
  total: number
): { pieces: Piece[]; sizes: number[] } => {
  const pieces: Piece[] = [];
  // sizes[k] is the byte length of the view holding the first k pieces.
  const sizes = [2];
  const seen = new Set<string>();
  let batch = 32;
  for (;;) {
    const recent: LocatedEntry[] = backend.recent(batch);
    for (let i = pieces.length; i < recent.length; i++) {
      const e = recent[i];
      if (e === undefined) break;
      const text = JSON.stringify({ objects: e.objects, metadata: e.metadata });
      const toolKey = JSON.stringify(e.tool);
      const nameKey = JSON.stringify([e.tool, e.name]);
      let add = utf8Length(text);
      if (!seen.has(nameKey)) {
        add += utf8Length(JSON.stringify(e.name)) + 3;
        if (!seen.has(toolKey)) add += utf8Length(toolKey) + 3;
        else add += 1;
        if (seen.size > 0 && !seen.has(toolKey)) add += 1;
      } else add += 1;
      const size = (sizes.at(-1) ?? 2) + add;
      if (size > budget) return { pieces, sizes };
      seen.add(toolKey).add(nameKey);
      pieces.push({
        tool: e.tool,
        name: e.name,
        text,
        objects: e.objects.length
      });
      sizes.push(size);
    }
    if (pieces.length >= total || recent.length < batch) {
      return { pieces, sizes };
    }
    batch *= 2;
  }
};

const render = (pieces: Piece[], note: string | undefined): string => {
  const tools = new Map<string, Map<string, string[]>>();
  for (const p of pieces) {
    let names = tools.get(p.tool);
    if (names === undefined) {
      names = new Map();
      tools.set(p.tool, names);
    }
    const list = names.get(p.name);
    if (list === undefined) names.set(p.name, [p.text]);
    else list.push(p.text);
  }
  const parts = [...tools].map(
    ([tool, names]) =>
      `${JSON.stringify(tool)}:{${[...names]
        .map(([name, texts]) => `${JSON.stringify(name)}:[${texts.join(",")}]`)
        .join(",")}}`
  );
  if (note !== undefined) parts.push(note);
  return `{${parts.join(",")}}`;
};

/**
 * Built as text rather than through an object so that key order is the
 * order of recency even for tool names like "1" (objects put integer keys
 * first). Entries are kept newest first and the first one that does not fit
 * ends the view, so everything left out is older than everything shown. The
 * note is always written when something is left out, even if a cap smaller
 * than the note itself forces it past the cap.
 */
export const renderLlmView = (
  backend: StoreBackend,
  maxBytes: number
): string => {
  const totalEntries = backend.keys().reduce((n, k) => n + k.entries, 0);
  const totalObjects = backend.totalObjects();
  const all = takeNewest(backend, maxBytes, totalEntries);
  if (all.pieces.length >= totalEntries) return render(all.pieces, undefined);
  // The note's numbers are at most the totals, so this reserve always fits it.
  const reserve = 1 + utf8Length(noteJson(totalEntries, totalObjects));
  let k = all.pieces.length;
  while (k > 0 && (all.sizes[k] ?? 0) > maxBytes - reserve) k--;
  const shown = all.pieces.slice(0, k);
  const shownObjects = shown.reduce((n, p) => n + p.objects, 0);
  return render(shown, noteJson(totalEntries - k, totalObjects - shownObjects));
};
