// Entries written over HTTP with a payload type and mapping: what a
// frontend of a session reads back, streams and cannot get wrong.
import { describe, expect, it } from "vitest";
import { createResetSession, errorOf, json, send } from "./helpers";

const rows = [
  { sku: "a1", title: "Kettle", price_eur: 30 },
  { sku: "b2", title: "Toaster" }
];
const table = {
  payload_type: "table",
  mapping: { product: "title", price: "price_eur" }
};

type Entry = Record<string, unknown> & { objects: Record<string, unknown>[] };

describe("payload_type and mapping over HTTP", () => {
  it("stores them with an added entry, returns them on every read and streams them", async () => {
    const s = await createResetSession();
    const added = await s.call(
      "/environment/shop/products",
      send("POST", { objects: rows, ...table })
    );
    expect(added.status).toBe(201);
    expect((await json<{ entry: Entry }>(added)).entry).toMatchObject(table);

    const one = await json<{ entry: Entry }>(
      await s.call("/environment?tool=shop&name=products&index=-1")
    );
    expect(one.entry).toMatchObject({ ...table, index: 0 });
    // Objects stay whole: the unmapped sku is there, the missing price is not invented.
    expect(one.entry.objects.map(({ _REF_ID, ...o }) => o)).toEqual(rows);

    const list = await json<{ entries: Entry[] }>(
      await s.call("/environment?tool=shop&name=products")
    );
    expect(list.entries[0]).toMatchObject(table);
    const page = await json<{ store: Record<string, Record<string, Entry[]>> }>(
      await s.call("/environment")
    );
    expect(page.store.shop?.products?.[0]).toMatchObject(table);

    const { events } = await json<{ events: Entry[] }>(
      await s.call("/events?after=0")
    );
    expect(events.find((e) => e.type === "result")).toMatchObject({
      tool: "shop",
      name: "products",
      ...table
    });
  });

  it("leaves them out of a plain entry, and a replacement keeps only what it sends", async () => {
    const s = await createResetSession();
    await s.call(
      "/environment/shop/products",
      send("POST", { objects: rows, ...table })
    );
    const replaced = await json<{ entry: Entry }>(
      await s.call(
        "/environment/shop/products/0",
        send("PUT", { objects: [{ title: "Kettle" }] })
      )
    );
    expect(replaced.entry).not.toHaveProperty("payload_type");
    expect(replaced.entry).not.toHaveProperty("mapping");
    const docs = await json<{ entry: Entry }>(
      await s.call(
        "/environment/shop/products",
        send("PUT", {
          objects: [{ body: "hello" }],
          payload_type: "document",
          mapping: { content: "body" }
        })
      )
    );
    expect(docs.entry).toMatchObject({
      payload_type: "document",
      mapping: { content: "body" }
    });
  });

  it("refuses a bad mapping or payload type with 400 and stores nothing", async () => {
    const s = await createResetSession();
    for (const bad of [
      { mapping: { product: 5 } },
      { mapping: ["title"] },
      { payload_type: "two words" },
      { payload_type: 3 }
    ]) {
      const res = await s.call(
        "/environment/shop/products",
        send("POST", { objects: rows, ...bad })
      );
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect((await errorOf(res)).code).toBe("invalid_request");
    }
    const keys = await json<{ keys: unknown[] }>(
      await s.call("/environment/keys")
    );
    expect(keys.keys).toEqual([]);
  });

  it("counts them in an Idempotency-Key's request: the same key with another type is refused", async () => {
    const s = await createResetSession();
    const headers = {
      "Content-Type": "application/json",
      "Idempotency-Key": "add-1"
    };
    const first = await s.call(
      "/environment/shop/products",
      send("POST", { objects: rows, ...table }, headers)
    );
    expect(first.status).toBe(201);
    const other = await s.call(
      "/environment/shop/products",
      send("POST", { objects: rows, payload_type: "document" }, headers)
    );
    expect(other.status).toBe(422);
    expect((await errorOf(other)).code).toBe("idempotency_mismatch");
  });
});
