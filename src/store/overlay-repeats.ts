/** @module The `[repeat]` lookup of one key an overlay wrote to: new objects' index plus the base objects it took away. */

import type { JsonObject } from "../json";
import { isRepeatMarker } from "./checks";
import { fingerprint } from "./fingerprint";
import type { NewSlot } from "./overlay-slots";
import type { ObjectFingerprint, StoreBackend } from "./types";

interface IndexItem {
  canonical: string;
  refId: string;
  slot: NewSlot;
}

const goneKey = (canonical: string, refId: string): string =>
  JSON.stringify([canonical, refId]);

/**
 * Answers as the base would after a flush. The base's own objects were
 * indexed before any new one, so they are asked first; those whose entry
 * the overlay removed or replaced are skipped by `(canonical, _REF_ID)`,
 * counted, since a caller may store the same object twice under one id.
 */
export class OverlayRepeats {
  /** Hash → new objects, in the order they were written. */
  #index = new Map<string, IndexItem[]>();
  #gone = new Map<string, number>();
  /** False once no base object of the key can still be live (never had any, or cleared). */
  #baseLive: boolean;

  constructor(baseLive: boolean) {
    this.#baseLive = baseLive;
  }

  link(slot: NewSlot): void {
    slot.fingerprints.forEach((print, i) => {
      const refId = slot.entry.objects[i]?._REF_ID;
      if (print === null || typeof refId !== "string") return;
      const item = { canonical: print.canonical, refId, slot };
      const bucket = this.#index.get(print.hash);
      if (bucket === undefined) this.#index.set(print.hash, [item]);
      else bucket.push(item);
    });
  }

  unlink(slot: NewSlot): void {
    for (const print of slot.fingerprints) {
      if (print === null) continue;
      const kept = (this.#index.get(print.hash) ?? []).filter(
        (item) => item.slot !== slot
      );
      if (kept.length === 0) this.#index.delete(print.hash);
      else this.#index.set(print.hash, kept);
    }
  }

  /** A base entry left the key: its objects stop being originals. */
  forgetBase(objects: JsonObject[]): void {
    for (const object of objects) {
      const refId = object._REF_ID;
      // The store indexes exactly the objects that are not repeat markers.
      if (isRepeatMarker(object) || typeof refId !== "string") continue;
      const key = goneKey(fingerprint(object).canonical, refId);
      this.#gone.set(key, (this.#gone.get(key) ?? 0) + 1);
    }
  }

  clear(): void {
    this.#index.clear();
    this.#gone.clear();
    this.#baseLive = false;
  }

  find(
    base: StoreBackend,
    tool: string,
    name: string,
    print: ObjectFingerprint,
    skip?: (refId: string) => boolean
  ): string | undefined {
    if (this.#baseLive) {
      const left = new Map<string, number>();
      const found = base.findRepeat(tool, name, print, (refId) => {
        if (skip?.(refId) === true) return true;
        const key = goneKey(print.canonical, refId);
        const gone = left.get(key) ?? this.#gone.get(key) ?? 0;
        left.set(key, gone - 1);
        return gone > 0;
      });
      if (found !== undefined) return found;
    }
    return this.#index
      .get(print.hash)
      ?.find((i) => i.canonical === print.canonical && skip?.(i.refId) !== true)
      ?.refId;
  }
}
