import { describe, expect, it } from "vitest";
import {
  action,
  createResetSession,
  errorOf,
  json,
  send,
  type TestSession
} from "./helpers";

// The examples of the Elysia Environment and Haystack State documents,
// this time through HTTP against real session objects.

const strip = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(strip)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([k]) => k !== "_REF_ID")
            .map(([k, v]) => [k, strip(v)])
        )
      : value;

const store = async (s: TestSession) =>
  strip((await json<{ store: unknown }>(await s.call("/environment"))).store);

describe("Elysia's environment examples over HTTP", () => {
  it("appends, adds, replaces, finds and removes exactly as documented", async () => {
    const s = await createResetSession({ environment: "lab" });
    const post = (tool: string, name: string, body: unknown) =>
      s.call(`/environment/${tool}/${name}`, send("POST", body));
    expect(
      (
        await post("query", "message_result", {
          objects: [
            {
              message_id: 1,
              message_content: "Hi this is an example message about frogs!"
            },
            {
              message_id: 2,
              message_content:
                "Hi this is also an example message about reindeer!"
            }
          ],
          metadata: {
            collection_name: "example_email_messages_collection",
            query_search_term: "animals"
          }
        })
      ).status
    ).toBe(201);
    await post("aggregate", "pet_food_result", {
      objects: [{ average_price: 45.99, product_count: 150 }],
      metadata: {
        collection_name: "pet_food",
        group_by: { field: "animal", value: "frog" }
      }
    });
    // cont. pt. 1: a second result with the same name appends to the list.
    await post("aggregate", "pet_food_result", {
      objects: [{ average_price: 12.52, product_count: 33 }],
      metadata: {
        collection_name: "pet_food",
        group_by: { field: "animal", value: "reindeer" }
      }
    });
    expect(await store(s)).toMatchObject({
      aggregate: {
        pet_food_result: [
          {
            objects: [{ average_price: 45.99, product_count: 150 }],
            metadata: { group_by: { value: "frog" } }
          },
          {
            objects: [{ average_price: 12.52, product_count: 33 }],
            metadata: { group_by: { value: "reindeer" } }
          }
        ]
      }
    });
    // cont. pt. 2: a tool that never ran gets its own key.
    const added = await json<{ entry: { objects: { _REF_ID: string }[] } }>(
      await post("descriptor", "animal_description", {
        objects: [{ animal: "frog", description: "Green and slimy" }]
      })
    );
    expect(added.entry.objects[0]!._REF_ID).toBe(
      "descriptor_animal_description_1_0"
    );
    // cont. pt. 3: replace without index makes the list one entry.
    expect(
      (
        await s.call(
          "/environment/descriptor/animal_description",
          send("PUT", {
            objects: [{ animal: "reindeer", description: "Has a red nose" }]
          })
        )
      ).status
    ).toBe(200);
    const found = await json<{ entries: unknown[] }>(
      await s.call("/environment?tool=descriptor&name=animal_description")
    );
    expect(strip(found.entries)).toEqual([
      {
        tool: "descriptor",
        name: "animal_description",
        index: 0,
        objects: [{ animal: "reindeer", description: "Has a red nose" }],
        metadata: {}
      }
    ]);
    // remove(index=-1) drops the newest entry; no index empties the list.
    await s.call("/environment/aggregate/pet_food_result/-1", {
      method: "DELETE"
    });
    const left = await json<{
      entries: { metadata: { group_by: { value: string } } }[];
    }>(await s.call("/environment?tool=aggregate&name=pet_food_result"));
    expect(left.entries.map((e) => e.metadata.group_by.value)).toEqual([
      "frog"
    ]);
    await s.call("/environment/query/message_result", { method: "DELETE" });
    expect(await store(s)).toMatchObject({ query: { message_result: [] } });
    // An index past the end is an error, and changes nothing.
    const before = await store(s);
    const missing = await s.call("/environment/aggregate/pet_food_result/5", {
      method: "DELETE"
    });
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).code).toBe("index_out_of_range");
    expect(await store(s)).toEqual(before);
  });
});

describe("Haystack's State examples over HTTP", () => {
  const patch = (s: TestSession, body: unknown) =>
    s.call("/state", send("PATCH", body));
  const state = async (s: TestSession) =>
    (await json<{ state: Record<string, unknown> }>(await s.call("/state")))
      .state;

  it("merges lists, replaces the rest, honours a handler override and rejects bad values", async () => {
    const s = await createResetSession({ environment: "lab" });
    await patch(s, { key: "notes", value: ["1", "2"] });
    await patch(s, { key: "notes", value: ["3", "4"] });
    expect((await state(s)).notes).toEqual(["1", "2", "3", "4"]);
    await patch(s, { key: "count", value: 1 });
    await patch(s, { key: "count", value: 2 });
    expect((await state(s)).count).toBe(2);
    await patch(s, { key: "notes", value: ["only"], handler: "replace" });
    expect((await state(s)).notes).toEqual(["only"]);

    const before = await state(s);
    const wrong = await patch(s, { key: "count", value: "three" });
    expect(wrong.status).toBe(400);
    expect((await errorOf(wrong)).code).toBe("invalid_state_value");
    const merged = await patch(s, {
      key: "count",
      value: 3,
      handler: "merge_lists"
    });
    expect((await errorOf(merged)).code).toBe("invalid_state_value");
    const unknown = await patch(s, { key: "nope", value: 1 });
    expect((await errorOf(unknown)).code).toBe("unknown_state_key");
    expect(await state(s)).toEqual(before);
  });

  it("feeds a tool's object result into state through outputsToState-like steps", async () => {
    const s = await createResetSession({ environment: "lab" });
    const out = await json<{ observations: { content: string }[] }>(
      await s.call("/step", send("POST", action("note", { text: "hello" })))
    );
    expect(out.observations[0]!.content).toBe("noted hello");
    expect((await state(s)).notes).toEqual(["hello"]);
  });
});

describe("story example", () => {
  it("ends with reward 1 for a five-word story", async () => {
    const s = await createResetSession({ environment: "story" });
    const res = await json<{ reward: number; done: boolean }>(
      await s.call(
        "/step",
        send(
          "POST",
          action("print_story", { story: "Frogs sing under the moon" })
        )
      )
    );
    expect(res).toMatchObject({ reward: 1, done: true });
  });
});
