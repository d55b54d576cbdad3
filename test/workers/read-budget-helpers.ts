/**
 * @module What the byte-budget tests share: objects of a known size that
 * say where they belong, a store filled with them, every page of a read
 * (each one's size and progress checked), and entry parts joined back.
 */
import { expect } from "vitest";
import { send, type TestSession } from "./helpers";

export type Obj = Record<string, unknown>;
export type WireEntry = Obj & {
  objects: Obj[];
  objects_from?: number;
  object_count?: number;
  index?: number;
};

export const KIB = 1024;

/** An object of about `kb` KiB that says where it belongs. */
export const object = (key: string, entry: number, i: number, kb = 2): Obj => ({
  key,
  entry,
  i,
  pad: "x".repeat(kb * KIB - 64)
});

/** Adds `entries` entries of `objects` objects of `kb` KiB under each key. */
export const fill = async (
  s: TestSession,
  keys: string[],
  entries: number,
  objects: number,
  kb = 2
) => {
  for (const key of keys) {
    for (let e = 0; e < entries; e++) {
      const res = await s.call(
        `/environment/t/${key}`,
        send("POST", {
          objects: Array.from({ length: objects }, (_, i) =>
            object(key, e, i, kb)
          ),
          metadata: { entry: e }
        })
      );
      expect(res.status).toBe(201);
    }
  }
};

/** Reads every page of `path` (which ends in `?…` or `&…`), checking each one's size and progress. */
export const pages = async <T extends Obj>(
  s: TestSession,
  path: string,
  maxBytes: number,
  from?: string
): Promise<T[]> => {
  const out: T[] = [];
  let cursor = from;
  do {
    const res = await s.call(
      `${path}max_bytes=${maxBytes}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    const page = JSON.parse(text) as T & {
      next_cursor?: string;
      truncated?: true;
    };
    // A unit is a few KiB here, so a page may pass its budget by one unit at most.
    expect(new TextEncoder().encode(text).byteLength).toBeLessThan(
      maxBytes + 4 * KIB
    );
    if (cursor !== undefined) expect(page.next_cursor).not.toBe(cursor);
    out.push(page);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  return out;
};

/** Joins entry parts: a part with `objects_from > 0` continues the entry before it. */
export const join = (parts: WireEntry[]): WireEntry[] => {
  const whole: WireEntry[] = [];
  for (const { objects_from, object_count, ...part } of parts) {
    const last = whole.at(-1);
    if (objects_from !== undefined && objects_from > 0) {
      expect(last?.objects.length).toBe(objects_from);
      last!.objects.push(...part.objects);
    } else {
      whole.push(part);
    }
    if (object_count !== undefined)
      expect(whole.at(-1)!.objects.length).toBeLessThanOrEqual(object_count);
  }
  return whole;
};
