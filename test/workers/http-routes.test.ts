import { describe, expect, it } from "vitest";
import {
  createResetSession,
  createSession,
  errorOf,
  json,
  send
} from "./helpers";

describe("POST /v1/sessions/:id/tools/:tool", () => {
  it("runs one tool with the session's context and returns what it stored", async () => {
    const session = await createResetSession({ environment: "lab" });
    const res = await session.call(
      "/tools/note",
      send("POST", { arguments: { text: "hi" } })
    );
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ content: "noted hi", is_error: false });
    expect(body.results).toEqual([
      expect.objectContaining({ tool: "note", name: "notes", index: 0 })
    ]);
    // Not a step: no transcript entry, no step counted.
    expect((await json(await session.call(""))).steps).toBe(0);
  });

  it("reports bad arguments as an is_error answer, not an HTTP error", async () => {
    const session = await createResetSession({ environment: "lab" });
    const res = await session.call(
      "/tools/note",
      send("POST", { arguments: { text: 5 } })
    );
    expect(res.status).toBe(200);
    expect((await json(res)).is_error).toBe(true);
  });

  it("answers an unknown tool with 404 and a session without reset with 409", async () => {
    const session = await createResetSession({ environment: "lab" });
    const unknown = await session.call("/tools/nope", send("POST", {}));
    expect(unknown.status).toBe(404);
    const fresh = await createSession({ environment: "lab" });
    const early = await fresh.call("/tools/bump", send("POST", {}));
    expect(early.status).toBe(409);
    expect((await errorOf(early)).code).toBe("episode_not_running");
  });
});

describe("/v1/sessions/:id/environment", () => {
  it("adds, reads, replaces and removes entries", async () => {
    const session = await createResetSession({ environment: "lab" });
    const add = await session.call(
      "/environment/search/papers",
      send("POST", { objects: [{ title: "a" }], metadata: { q: "x" } })
    );
    expect(add.status).toBe(201);
    expect((await json(add)).entry).toMatchObject({
      tool: "search",
      name: "papers",
      index: 0,
      metadata: { q: "x" }
    });
    await session.call(
      "/environment/search/papers",
      send("POST", { objects: [{ title: "b" }] })
    );

    const page = await json(await session.call("/environment"));
    expect(Object.keys(page.store as object)).toEqual(["search"]);
    const entries = await json<{ entries: unknown[] }>(
      await session.call("/environment?tool=search&name=papers")
    );
    expect(entries.entries).toHaveLength(2);
    const newest = await json<{
      entry: { index: number; objects: { title: string }[] };
    }>(await session.call("/environment?tool=search&name=papers&index=-1"));
    expect(newest.entry.index).toBe(1);
    expect(newest.entry.objects[0]?.title).toBe("b");

    const keys = async () =>
      (await json<{ keys: unknown[] }>(await session.call("/environment/keys")))
        .keys;
    expect(await keys()).toEqual([
      { tool: "search", name: "papers", entries: 2, objects: 2 }
    ]);

    const replaceOne = await session.call(
      "/environment/search/papers/0",
      send("PUT", { objects: [{ title: "c" }, { title: "c2" }] })
    );
    expect(replaceOne.status).toBe(200);
    expect(await keys()).toEqual([
      { tool: "search", name: "papers", entries: 2, objects: 3 }
    ]);
    const removeOne = await session.call("/environment/search/papers/-1", {
      method: "DELETE"
    });
    expect(await json(removeOne)).toEqual({ removed: 1 });
    const replaceAll = await session.call(
      "/environment/search/papers",
      send("PUT", { objects: [{ title: "d" }, { title: "e" }] })
    );
    expect((await json(replaceAll)).entry).toMatchObject({ index: 0 });
    const removeAll = await session.call("/environment/search/papers", {
      method: "DELETE"
    });
    expect(await json(removeAll)).toEqual({ removed: 1 });
    // Like Elysia, removing every entry keeps the key, empty.
    const emptied = await session.call("/environment?tool=search&name=papers");
    expect(await json(emptied)).toEqual({ entries: [] });
    expect(await keys()).toEqual([
      { tool: "search", name: "papers", entries: 0, objects: 0 }
    ]);
  });

  it("answers a missing key with 404 not_found and an index out of range with 404 index_out_of_range", async () => {
    const session = await createResetSession({ environment: "lab" });
    const missing = await session.call("/environment/search/none/0", {
      method: "DELETE"
    });
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).code).toBe("not_found");
    await session.call(
      "/environment/search/one",
      send("POST", { objects: [{}] })
    );
    const out = await session.call("/environment?tool=search&name=one&index=5");
    expect(out.status).toBe(404);
    expect((await errorOf(out)).code).toBe("index_out_of_range");
  });

  it("refuses bad names, a name without a tool, and objects that are not objects", async () => {
    const session = await createResetSession({ environment: "lab" });
    const badName = await session.call(
      "/environment/search/bad%20name",
      send("POST", { objects: [] })
    );
    expect(badName.status).toBe(400);
    expect((await errorOf(badName)).code).toBe("invalid_name");
    const half = await session.call("/environment?name=papers");
    expect(half.status).toBe(400);
    const notObjects = await session.call(
      "/environment/search/p",
      send("POST", { objects: [1] })
    );
    expect(notObjects.status).toBe(400);
    expect((await errorOf(notObjects)).message).toContain("objects.0");
  });
});
