/**
 * @module How a frontend reads a result's `mapping`: pure and import-free, so
 * a browser bundle (the inspector, a user's own frontend) takes it alone.
 */

/** `{ displayField: dataField }`: which field of each stored object fills which display field. */
export type Mapping = Record<string, string>;

/** Kept through a mapping, like Elysia's `unmapped_keys`: references still point at the object. */
const ALWAYS_KEPT = ["_REF_ID"];

type Row = Record<string, unknown>;

/**
 * The objects as a frontend shows them: each display field holds the mapped
 * field's value. A display field mapped to `""` is left out (Elysia's way of
 * saying "not in this payload"). Where an object lacks the mapped field, that
 * display field is left out of that object, rather than failing the whole
 * result as Elysia's KeyError does: a table shows an empty cell. Without a
 * mapping the objects come back as they are. The stored objects are never
 * changed; the store keeps them whole and the mapping beside them.
 *
 * @example
 * mapObjects([{ sku: "a1", price_eur: 5 }], { id: "sku", price: "price_eur" });
 * // [{ id: "a1", price: 5 }]
 */
export const mapObjects = <T extends Row>(
  objects: readonly T[],
  mapping?: Mapping
): Row[] => {
  if (mapping === undefined) return [...objects];
  const fields = Object.entries(mapping).filter(([, from]) => from !== "");
  return objects.map((object) => {
    const out: Row = {};
    for (const [to, from] of fields) {
      if (Object.hasOwn(object, from)) define(out, to, object[from]);
    }
    for (const key of ALWAYS_KEPT) {
      if (Object.hasOwn(object, key) && !Object.hasOwn(out, key)) {
        define(out, key, object[key]);
      }
    }
    return out;
  });
};

/** The display fields a mapping shows, in its order: a table's columns. */
export const mappedFields = (mapping: Mapping): string[] =>
  Object.entries(mapping)
    .filter(([, from]) => from !== "")
    .map(([to]) => to);

// A display field called `__proto__` must be a field, not the prototype.
const define = (target: Row, key: string, value: unknown): void => {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true
  });
};
