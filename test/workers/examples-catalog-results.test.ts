// The catalog example (examples/catalog) over HTTP: the tables loaded at
// reset, each query's result stored with its metadata and shown as a
// table or as documents, and groups counted and averaged as the data says.

import { describe, expect, it } from "vitest";
import messages from "../../examples/catalog/messages.json";
import products from "../../examples/catalog/products.json";
import { mapObjects } from "../../src/index";
import { direct, has, type Row, type Step } from "./examples-catalog-helpers";
import { action, createResetSession, json, send } from "./helpers";

describe("catalog over HTTP: results", () => {
  it("loads the tables at reset, stores the result with its metadata and records last_query", async () => {
    const s = await createResetSession({ environment: "catalog" });
    const out = await json<Step>(
      await s.call(
        "/step",
        send(
          "POST",
          action("query", { collection: "products", text: "KIBBLE" })
        )
      )
    );
    expect(out.observations[0]!.is_error).toBe(false);
    const expected = products
      .filter((p) => has(p.name, "kibble") || has(p.description, "kibble"))
      .map((p) => p.id);
    expect(expected.length).toBeGreaterThan(2);
    const content = JSON.parse(out.observations[0]!.content) as {
      count: number;
      rows: Row[];
    };
    expect(content.rows.map((r) => r.id)).toEqual(expected);
    expect(content.count).toBe(expected.length);
    expect(content.rows[0]).toEqual(products.find((p) => p.id === expected[0]));

    const found = await json<{
      entries: { objects: Row[]; metadata: Record<string, unknown> }[];
    }>(await s.call("/environment?tool=query&name=products"));
    expect(found.entries).toHaveLength(1);
    expect(found.entries[0]!.metadata).toEqual({
      collection: "products",
      query: "KIBBLE",
      filters: []
    });
    expect(found.entries[0]!.objects.map((o) => o.id)).toEqual(expected);

    const state = await json<{ state: Record<string, unknown> }>(
      await s.call("/state")
    );
    expect(state.state.last_query).toEqual({
      collection: "products",
      text: "KIBBLE",
      filters: [],
      limit: 10
    });
    expect(state.state.user_context).toBe("a pet owner");
  });

  it("shows products as a table and messages as documents, with the rows stored whole", async () => {
    const s = await createResetSession({ environment: "catalog" });
    const table = {
      payload_type: "table",
      mapping: {
        product: "name",
        animal: "animal",
        category: "category",
        price: "price",
        rating: "rating"
      }
    };
    const step = await json<Step>(
      await s.call(
        "/step",
        send(
          "POST",
          action("query", { collection: "products", text: "kibble" })
        )
      )
    );
    expect(step.observations[0]!.is_error).toBe(false);
    await direct(s, "query", { collection: "messages", text: "order" });

    const { entry } = await json<{
      entry: {
        objects: Row[];
        payload_type?: string;
        mapping?: Record<string, string>;
      };
    }>(await s.call("/environment?tool=query&name=products&index=-1"));
    expect(entry).toMatchObject(table);
    // Lossless: the description the table leaves out is still stored.
    const kibble = products.filter(
      (p) => has(p.name, "kibble") || has(p.description, "kibble")
    );
    expect(entry.objects[0]).toMatchObject({
      description: kibble[0]!.description
    });
    expect(mapObjects(entry.objects, entry.mapping)[0]).toEqual({
      _REF_ID: entry.objects[0]!._REF_ID,
      product: kibble[0]!.name,
      animal: kibble[0]!.animal,
      category: kibble[0]!.category,
      price: kibble[0]!.price,
      rating: kibble[0]!.rating
    });

    const page = await json<{
      store: Record<string, Record<string, Record<string, unknown>[]>>;
    }>(await s.call("/environment"));
    expect(page.store.query?.messages?.[0]).toMatchObject({
      payload_type: "document",
      mapping: { title: "channel", content: "text", author: "author" }
    });

    const { events } = await json<{
      events: { type: string; name?: string; [k: string]: unknown }[];
    }>(await s.call("/events?after=0"));
    const results = events.filter((e) => e.type === "result");
    expect(results.map((e) => [e.name, e.payload_type])).toEqual([
      ["products", "table"],
      ["messages", "document"]
    ]);
    expect(results[0]).toMatchObject(table);
    expect(results[0]).not.toHaveProperty("payloadType");
  });

  it("shows an aggregate's groups as a table without a mapping", async () => {
    const s = await createResetSession({ environment: "catalog" });
    await direct(s, "aggregate", {
      collection: "products",
      group_by: "animal"
    });
    const { entry } = await json<{ entry: Record<string, unknown> }>(
      await s.call("/environment?tool=aggregate&name=products&index=0")
    );
    expect(entry.payload_type).toBe("table");
    expect(entry).not.toHaveProperty("mapping");
  });

  it("counts and averages per group as the data says", async () => {
    const s = await createResetSession({ environment: "catalog" });
    const out = await direct(s, "aggregate", {
      collection: "products",
      group_by: "animal"
    });
    expect(out.is_error).toBe(false);
    const counts = new Map<string, number>();
    for (const p of products)
      counts.set(p.animal, (counts.get(p.animal) ?? 0) + 1);
    const groups = (JSON.parse(out.content) as { groups: Row[] }).groups;
    expect(groups).toEqual(
      [...counts.keys()].sort().map((animal) => ({
        animal,
        count: counts.get(animal)
      }))
    );
    const found = await json<{
      entries: { objects: Row[]; metadata: Record<string, unknown> }[];
    }>(await s.call("/environment?tool=aggregate&name=products"));
    expect(found.entries[0]!.metadata).toEqual({
      collection: "products",
      group_by: "animal",
      metric: "count"
    });

    const prices = JSON.parse(
      (
        await direct(s, "aggregate", {
          collection: "products",
          group_by: "category",
          metric: "avg_price"
        })
      ).content
    ) as { groups: { category: string; count: number; avg_price: number }[] };
    for (const g of prices.groups) {
      const inGroup = products.filter((p) => p.category === g.category);
      const mean =
        inGroup.reduce((sum, p) => sum + p.price, 0) / inGroup.length;
      expect(g.count).toBe(inGroup.length);
      expect(g.avg_price).toBeCloseTo(mean, 2);
    }

    const channels = JSON.parse(
      (
        await direct(s, "aggregate", {
          collection: "messages",
          group_by: "channel"
        })
      ).content
    ) as { groups: { channel: string; count: number }[] };
    expect(channels.groups.reduce((sum, g) => sum + g.count, 0)).toBe(
      messages.length
    );

    const noPrice = await direct(s, "aggregate", {
      collection: "messages",
      group_by: "author",
      metric: "avg_price"
    });
    expect(noPrice.is_error).toBe(true);
    expect(noPrice.content).toContain('Use metric "count"');
  });
});
