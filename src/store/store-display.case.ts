/** @module Contract cases for how an entry asks to be displayed: payload type and mapping, kept by every backend. */

import { describe, expect, it } from "vitest";
import { codeOf } from "./helpers.case";
import { result } from "./result";
import type { EnvironmentStore } from "./types";

const products = [
  { sku: "a1", title: "Kettle", price_eur: 30 },
  { sku: "b2", title: "Toaster", price_eur: 25 }
];
const mapping = { product: "title", price: "price_eur" };

export const displayCases = (create: () => EnvironmentStore): void => {
  describe("payload type and mapping", () => {
    it("keeps a result's payload type and mapping with its entry, objects whole", () => {
      const store = create();
      const added = store.add(
        "search",
        result({
          name: "products",
          objects: products,
          payloadType: "table",
          mapping
        })
      );
      expect(added).toMatchObject({ payloadType: "table", mapping });
      const found = store.find("search", "products", 0);
      expect(found.payloadType).toBe("table");
      expect(found.mapping).toEqual(mapping);
      expect(found.objects.map((o) => o.price_eur)).toEqual([30, 25]);
      expect(store.locate("search", "products", -1)).toMatchObject({
        payloadType: "table",
        mapping
      });
      expect(store.recent(1)[0]).toMatchObject({ payloadType: "table" });
      expect(store.page().store.search?.products?.[0]).toMatchObject({
        payloadType: "table",
        mapping
      });
      expect(store.slice("search", "products", 0, 1).entries[0]).toMatchObject({
        mapping
      });
    });

    it("leaves both out of a plain entry, so its shape is as before", () => {
      const store = create();
      store.add("search", result({ name: "plain", objects: [{ a: 1 }] }));
      expect(Object.keys(store.find("search", "plain", 0)).sort()).toEqual([
        "metadata",
        "objects"
      ]);
    });

    it("takes them as addObjects options, and a replacement keeps only what it gives", () => {
      const store = create();
      store.addObjects("t", "n", [{ a: 1 }], {}, { payloadType: "document" });
      store.addObjects("t", "n", [{ a: 2 }], {}, { payloadType: "table" });
      expect(store.find("t", "n", 0).payloadType).toBe("document");
      store.replace("t", "n", [{ a: 3 }], {}, 0);
      expect(store.find("t", "n", 0).payloadType).toBeUndefined();
      expect(store.find("t", "n", 1).payloadType).toBe("table");
      store.replace("t", "n", [{ a: 4 }], {}, 1, {
        payloadType: "table",
        mapping: { value: "a" }
      });
      expect(store.find("t", "n", 1)).toMatchObject({
        payloadType: "table",
        mapping: { value: "a" }
      });
      store.replace("t", "n", [{ a: 5 }]);
      expect(store.find("t", "n")).toEqual([
        { objects: [expect.objectContaining({ a: 5 })], metadata: {} }
      ]);
    });

    it("refuses a bad payload type or mapping and stores nothing", () => {
      const store = create();
      const bad = [
        { payloadType: "" },
        { payloadType: "two words" },
        { mapping: { price: 5 } },
        { mapping: ["title"] },
        { mapping: { "": "title" } }
      ];
      for (const display of bad) {
        expect(
          codeOf(() =>
            store.addObjects("t", "n", [{ a: 1 }], {}, display as never)
          )
        ).toBe("invalid_request");
      }
      expect(store.has("t", "n")).toBe(false);
    });

    it("never shows them to the model: the llm view is objects and metadata", () => {
      const store = create();
      store.addObjects("t", "n", [{ a: 1 }], {}, { payloadType: "table" });
      expect(store.llmView()).not.toContain("table");
    });
  });
};
