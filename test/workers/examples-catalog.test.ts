import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { catalog, RAW_KEY } from "../../examples/catalog/index";
import messages from "../../examples/catalog/messages.json";
import products from "../../examples/catalog/products.json";
import { createLocalSession, mapObjects } from "../../src/index";
import { toolCalls } from "../../src/messages/build";
import {
  action,
  call,
  createResetSession,
  json,
  send,
  type TestSession
} from "./helpers";

interface Step {
  observations: { content: string; is_error: boolean }[];
  reward: number;
  done: boolean;
}

interface Direct {
  content: string;
  is_error: boolean;
}

type Row = Record<string, string | number>;

/** A direct call (not a step): the tool's content, parsed when it is JSON. */
const direct = async (
  s: TestSession,
  tool: string,
  args: Record<string, unknown>
): Promise<Direct> =>
  json<Direct>(
    await s.call(`/tools/${tool}`, send("POST", { arguments: args }))
  );

const rowsOf = (out: Direct): Row[] => {
  expect(out.is_error, out.content).toBe(false);
  return (JSON.parse(out.content) as { rows: Row[] }).rows;
};

const has = (text: string, words: string) =>
  text.toLowerCase().includes(words.toLowerCase());

describe("catalog over HTTP", () => {
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

  it("applies whitelisted filters with bound values", async () => {
    const s = await createResetSession({ environment: "catalog" });
    const rows = rowsOf(
      await direct(s, "query", {
        collection: "products",
        filters: [
          { field: "animal", op: "eq", value: "cat" },
          { field: "price", op: "lt", value: 20 }
        ],
        limit: 50
      })
    );
    expect(rows.map((r) => r.id)).toEqual(
      products
        .filter((p) => p.animal === "cat" && p.price < 20)
        .map((p) => p.id)
    );
    const support = rowsOf(
      await direct(s, "query", {
        collection: "messages",
        text: "order",
        filters: [{ field: "channel", op: "eq", value: "support" }]
      })
    );
    expect(support.map((r) => r.id)).toEqual(
      messages
        .filter((m) => m.channel === "support" && has(m.text, "order"))
        .map((m) => m.id)
        .slice(0, 10)
    );
  });

  it("treats text as plain characters and refuses columns outside the collection", async () => {
    const s = await createResetSession({ environment: "catalog" });
    const injected = await direct(s, "query", {
      collection: "products",
      text: "%'); DROP TABLE catalog_products; --"
    });
    expect(rowsOf(injected)).toEqual([]);
    expect(
      rowsOf(await direct(s, "query", { collection: "products", limit: 1 }))
    ).toHaveLength(1);

    const wrongField = await direct(s, "query", {
      collection: "messages",
      filters: [{ field: "price", op: "lt", value: 5 }]
    });
    expect(wrongField.is_error).toBe(true);
    expect(wrongField.content).toContain(
      'messages cannot be filtered by "price"'
    );
    const notAColumn = await direct(s, "query", {
      collection: "products",
      filters: [{ field: "1=1 OR name", op: "eq", value: 1 }]
    });
    expect(notAColumn.is_error).toBe(true);
    expect(notAColumn.content).toMatch(/^Invalid arguments for query: filters/);
  });

  it("ranks products for the animal named in the user context first", async () => {
    const s = await createResetSession({
      environment: "catalog",
      task: { user_context: "a dog owner in Oslo" }
    });
    const state = await json<{ state: Record<string, unknown> }>(
      await s.call("/state")
    );
    expect(state.state.user_context).toBe("a dog owner in Oslo");
    const rows = rowsOf(
      await direct(s, "query", {
        collection: "products",
        filters: [{ field: "category", op: "eq", value: "toy" }],
        limit: 50
      })
    );
    const toys = products.filter((p) => p.category === "toy");
    const dogs = toys.filter((p) => p.animal === "dog").map((p) => p.id);
    const rest = toys.filter((p) => p.animal !== "dog").map((p) => p.id);
    expect(rows.map((r) => r.id)).toEqual([...dogs, ...rest]);
  });

  it("hides user_context from the model's schema of query", async () => {
    const listed = await json<{
      environments: {
        name: string;
        tools: {
          function: {
            name: string;
            parameters: { properties: Record<string, unknown> };
          };
        }[];
      }[];
    }>(await call("/v1/environments"));
    const env = listed.environments.find((e) => e.name === "catalog");
    const query = env?.tools.find((t) => t.function.name === "query");
    expect(Object.keys(query!.function.parameters.properties).sort()).toEqual([
      "collection",
      "filters",
      "limit",
      "text"
    ]);
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

  it("reloads the same rows on every reset", async () => {
    const s = await createResetSession({ environment: "catalog" });
    for (let i = 0; i < 2; i++) {
      expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    }
    const out = await direct(s, "aggregate", {
      collection: "messages",
      group_by: "author"
    });
    const groups = (JSON.parse(out.content) as { groups: { count: number }[] })
      .groups;
    expect(groups.reduce((sum, g) => sum + g.count, 0)).toBe(messages.length);
  });

  it("keeps the raw rows and statement in the hidden store, out of every read", async () => {
    const s = await createResetSession({ environment: "catalog" });
    const step = await s.call(
      "/step",
      send("POST", action("query", { collection: "products", text: "bed" }))
    );
    const called = await s.call(
      "/tools/query",
      send("POST", { arguments: { collection: "messages", text: "cat" } })
    );
    // The statement names the table; nothing else the catalog shows does.
    const SENTINEL = "FROM catalog_";
    const raw = await runInDurableObject(
      env.SESSIONS.get(env.SESSIONS.idFromString(s.session_id)),
      (_instance, state) =>
        state.storage.sql
          .exec<{ value: string }>(
            "SELECT value FROM hidden WHERE key = ?",
            RAW_KEY
          )
          .toArray()
    );
    expect(raw).toHaveLength(1);
    const cached = JSON.parse(raw[0]!.value) as {
      statement: string;
      rows: Row[];
    };
    expect(cached.statement).toContain(SENTINEL);
    expect(cached.rows.length).toBeGreaterThan(0);

    const reads = [
      await step.text(),
      await called.text(),
      ...(await Promise.all(
        ["", "/state", "/environment", "/messages", "/frame", "/events"].map(
          async (path) => {
            const res = await s.call(path);
            expect(res.status, path).toBe(200);
            return res.text();
          }
        )
      )),
      await (await call("/v1/environments")).text()
    ];
    for (const text of reads) expect(text).not.toContain(SENTINEL);
  });
});

describe("catalog without a session's SQLite", () => {
  it("searches again for a second prompt of the same session", async () => {
    const s = await createResetSession({ environment: "catalog" });
    const ask = async (prompt: string) => {
      const started = await json<{ run_id: string }>(
        await s.call("/runs", send("POST", { prompt }))
      );
      return json<{ state: string; tasks: { task: string }[] }>(
        await s.call(`/runs/${started.run_id}?wait=20`)
      );
    };
    for (const prompt of ["cat toys rated 4.5", "dog beds"]) {
      const r = await ask(prompt);
      expect(r.state).toBe("completed");
      expect(r.tasks.map((t) => t.task)).toEqual([
        "search",
        "query",
        "search",
        "aggregate",
        "text_response"
      ]);
    }
  });

  it("resets, and its tools say why they cannot run", async () => {
    const s = createLocalSession(catalog);
    const { observations } = await s.reset();
    expect(observations[0]!.content).toContain("a pet owner");
    const out = await s.step(
      toolCalls({ name: "query", arguments: { collection: "products" } })
    );
    expect(out.observations[0]).toMatchObject({ is_error: true });
    expect(out.observations[0]!.content).toContain("createLocalSession");
    expect(out.done).toBe(false);
  });
});
