import { describe, expect, it } from "vitest";
import { mapObjects, mappedFields } from "./map-objects";

const stored = [
  { _REF_ID: "search_products_1_0", title: "Kettle", price_eur: 30, sku: "a" },
  { _REF_ID: "search_products_1_1", title: "Toaster", sku: "b" }
];

describe("mapObjects", () => {
  it("renames mapped fields, drops the others and keeps _REF_ID", () => {
    expect(
      mapObjects(stored, { product: "title", price: "price_eur" })
    ).toEqual([
      { product: "Kettle", price: 30, _REF_ID: "search_products_1_0" },
      { product: "Toaster", _REF_ID: "search_products_1_1" }
    ]);
  });

  it("leaves out a display field whose source is missing, instead of failing", () => {
    const [, toaster] = mapObjects(stored, { price: "price_eur" });
    expect(toaster).toEqual({ _REF_ID: "search_products_1_1" });
  });

  it('skips display fields mapped to "", and returns copies without a mapping', () => {
    expect(mapObjects(stored, { product: "title", code: "" })[0]).toEqual({
      product: "Kettle",
      _REF_ID: "search_products_1_0"
    });
    const same = mapObjects(stored);
    expect(same).toEqual(stored);
    expect(same).not.toBe(stored);
    expect(mappedFields({ product: "title", code: "", price: "p" })).toEqual([
      "product",
      "price"
    ]);
  });

  it("never changes the stored objects, and a __proto__ field stays a field", () => {
    const before = JSON.stringify(stored);
    const [out] = mapObjects(stored, JSON.parse('{"__proto__":"title"}'));
    expect(JSON.stringify(stored)).toBe(before);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out ?? {}, "__proto__")).toBe(true);
  });
});
