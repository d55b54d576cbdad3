// The catalog example's queries over HTTP: whitelisted filters with bound
// values, text taken as plain characters, the user's context ranking
// first and hidden from the model's schema, the same rows on every reset,
// and the raw rows kept in the hidden store, out of every read.

import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RAW_KEY } from "../../examples/catalog/index";
import messages from "../../examples/catalog/messages.json";
import products from "../../examples/catalog/products.json";
import { direct, has, type Row, rowsOf } from "./examples-catalog-helpers";
import { action, call, createResetSession, json, send } from "./helpers";

describe("catalog over HTTP: queries", () => {
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
