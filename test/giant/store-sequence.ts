/**
 * @module The store as a read must give it back: every planned object
 * exactly once, in key order, entry order and object order, with parts of
 * an entry continuing exactly where the last one stopped. Checked as the
 * parts arrive, so no read has to hold 200 MB.
 */

import {
  type EntryPlan,
  type KeyPlan,
  metadataOf,
  objectOf,
  STORE_PLAN
} from "./plan";

/** An entry, or the part of one, as a read answers it. */
export interface EntryPart {
  tool: string;
  name: string;
  /** Absent on whole-store pages, which list a key's entries without it. */
  index?: number;
  objects: Record<string, unknown>[];
  metadata: Record<string, unknown>;
  objects_from?: number;
  object_count?: number;
}

/** What a read was found to hold: counts, for the report and the tests. */
export interface SequenceSummary {
  keys: number;
  entries: number;
  objects: number;
  /** Parts that held only some of their entry's objects. */
  parts: number;
}

const sameJson = (a: unknown, b: unknown): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

export class StoreSequence {
  readonly #keys: readonly KeyPlan[];
  #key = 0;
  #entry = 0;
  #object = 0;
  #summary: SequenceSummary = { keys: 0, entries: 0, objects: 0, parts: 0 };

  /** `keys`: the plan's keys this read covers, each from `fromEntry` on. */
  constructor(
    keys: readonly KeyPlan[] = STORE_PLAN,
    readonly fromEntry = 0
  ) {
    this.#keys = keys;
    this.#entry = fromEntry;
  }

  /** Takes the next part; throws at the first object out of place. */
  take(part: EntryPart): void {
    const key = this.#keyFor(part);
    const entry = key.entries[this.#entry];
    const where = `${part.tool}/${part.name} entry ${this.#entry}`;
    if (entry === undefined) {
      throw new Error(
        `${where}: past the key's ${key.entries.length} entries.`
      );
    }
    if (part.index !== undefined && part.index !== entry.index) {
      throw new Error(`${where}: the read says index ${part.index}.`);
    }
    if ((part.objects_from ?? 0) !== this.#object) {
      throw new Error(
        `${where}: a part from object ${part.objects_from ?? 0}, expected ${this.#object}.`
      );
    }
    const whole = part.objects_from === undefined;
    if (whole && part.objects.length !== entry.objects) {
      throw new Error(
        `${where}: ${part.objects.length} objects with no part marks, of ${entry.objects}.`
      );
    }
    if (!whole && part.object_count !== entry.objects) {
      throw new Error(
        `${where}: object_count ${part.object_count}, expected ${entry.objects}.`
      );
    }
    if (!sameJson(part.metadata, metadataOf(key, entry))) {
      throw new Error(`${where}: metadata ${JSON.stringify(part.metadata)}.`);
    }
    if (!whole) this.#summary.parts++;
    for (const object of part.objects) this.#takeObject(key, entry, object);
    if (this.#object === entry.objects) {
      this.#entry++;
      this.#object = 0;
      this.#summary.entries++;
    }
  }

  /** Throws unless every planned object was taken. */
  finish(): SequenceSummary {
    const key = this.#keys[this.#key];
    const done =
      this.#key === this.#keys.length - 1 &&
      key !== undefined &&
      this.#entry === key.entries.length &&
      this.#object === 0;
    if (!done) {
      throw new Error(
        `The read ended early: at ${key?.tool}/${key?.name} entry ${this.#entry}, object ${this.#object}.`
      );
    }
    return { ...this.#summary, keys: this.#key + 1 };
  }

  /** The key a part belongs to: the current one, or the next once it is complete. */
  #keyFor(part: EntryPart): KeyPlan {
    let key = this.#keys[this.#key];
    if (key?.tool === part.tool && key.name === part.name) return key;
    const complete =
      key !== undefined &&
      this.#entry === key.entries.length &&
      this.#object === 0;
    key = this.#keys[this.#key + 1];
    if (!complete || key?.tool !== part.tool || key.name !== part.name) {
      throw new Error(
        `${part.tool}/${part.name} came while ${this.#keys[this.#key]?.tool}/${this.#keys[this.#key]?.name} was at entry ${this.#entry}, object ${this.#object}.`
      );
    }
    this.#key++;
    this.#entry = this.fromEntry;
    return key;
  }

  #takeObject(
    key: KeyPlan,
    entry: EntryPlan,
    object: Record<string, unknown>
  ): void {
    const { _REF_ID: _id, ...got } = object;
    const want = objectOf(key, entry, this.#object);
    if (
      got.k !== want.k ||
      got.e !== want.e ||
      got.i !== want.i ||
      got.pad !== want.pad ||
      Object.keys(got).length !== 4
    ) {
      const seen = JSON.stringify({ ...got, pad: undefined });
      throw new Error(
        `${key.tool}/${key.name} entry ${entry.index}: expected object ${this.#object}, got ${seen}.`
      );
    }
    this.#object++;
    this.#summary.objects++;
  }
}
