import { beforeEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../json";
import { createEnvironmentStore } from "./environment-store";
import { codeOf, stripRefIds } from "./helpers.case";
import { MemoryStoreBackend } from "./memory-backend";
import { result } from "./result";
import type { EnvironmentStore } from "./types";

// The examples of Elysia's "Environment" page, step by step, with the JSON it shows.

const messages: JsonObject[] = [
  {
    message_id: 1,
    message_content: "Hi this is an example message about frogs!"
  },
  {
    message_id: 2,
    message_content: "Hi this is also an example message about reindeer!"
  }
];
const messageMetadata = {
  collection_name: "example_email_messages_collection",
  query_search_term: "animals"
};
const frogFood = {
  objects: [{ average_price: 45.99, product_count: 150 }],
  metadata: {
    collection_name: "pet_food",
    group_by: { field: "animal", value: "frog" }
  }
};
const reindeerFood = {
  objects: [{ average_price: 12.52, product_count: 33 }],
  metadata: {
    collection_name: "pet_food",
    group_by: { field: "animal", value: "reindeer" }
  }
};
const queryPart = {
  message_result: [{ objects: messages, metadata: messageMetadata }]
};

describe("Elysia environment examples", () => {
  let env: EnvironmentStore;

  beforeEach(() => {
    env = createEnvironmentStore(new MemoryStoreBackend());
    env.addObjects("query", "message_result", messages, messageMetadata);
    env.addObjects(
      "aggregate",
      "pet_food_result",
      frogFood.objects,
      frogFood.metadata
    );
  });

  const addReindeerFood = () =>
    env.add(
      "aggregate",
      result({
        name: "pet_food_result",
        objects: reindeerFood.objects,
        metadata: reindeerFood.metadata
      })
    );
  const addFrogDescription = () =>
    env.add(
      "descriptor",
      result({
        objects: [{ animal: "frog", description: "Green and slimy" }],
        name: "animal_description"
      })
    );

  it("starts as the store after query and aggregate", () => {
    expect(stripRefIds(env.toJSON())).toEqual({
      query: queryPart,
      aggregate: { pet_food_result: [frogFood] }
    });
  });

  it("appends a second pet_food_result under the same key (cont. pt. 1)", () => {
    addReindeerFood();
    expect(stripRefIds(env.toJSON())).toEqual({
      query: queryPart,
      aggregate: { pet_food_result: [frogFood, reindeerFood] }
    });
    expect(env.keys().map((k) => `${k.tool}/${k.name}`)).toEqual([
      "query/message_result",
      "aggregate/pet_food_result"
    ]);
  });

  it("adds a Result under a tool never called, metadata {} (cont. pt. 2)", () => {
    addReindeerFood();
    addFrogDescription();
    expect(stripRefIds(env.toJSON())).toEqual({
      query: queryPart,
      aggregate: { pet_food_result: [frogFood, reindeerFood] },
      descriptor: {
        animal_description: [
          {
            objects: [{ animal: "frog", description: "Green and slimy" }],
            metadata: {}
          }
        ]
      }
    });
    expect(env.find("descriptor", "animal_description", 0).objects).toEqual([
      {
        _REF_ID: "descriptor_animal_description_1_0",
        animal: "frog",
        description: "Green and slimy"
      }
    ]);
    expect(
      env.find("query", "message_result", 0).objects.map((o) => o._REF_ID)
    ).toEqual(["query_message_result_1_0", "query_message_result_1_1"]);
  });

  it("replaces the whole list with the reindeer (cont. pt. 3)", () => {
    addReindeerFood();
    addFrogDescription();
    env.replace("descriptor", "animal_description", [
      { animal: "reindeer", description: "Has a red nose" }
    ]);
    expect(stripRefIds(env.toJSON())).toEqual({
      query: queryPart,
      aggregate: { pet_food_result: [frogFood, reindeerFood] },
      descriptor: {
        animal_description: [
          {
            objects: [{ animal: "reindeer", description: "Has a red nose" }],
            metadata: {}
          }
        ]
      }
    });
  });

  it("finds the list or the item at an index", () => {
    addReindeerFood();
    const list = env.find("aggregate", "pet_food_result");
    expect(stripRefIds({ t: { n: list } }).t?.n).toEqual([
      frogFood,
      reindeerFood
    ]);
    const newest = env.find("aggregate", "pet_food_result", -1);
    expect(stripRefIds({ t: { n: [newest] } }).t?.n).toEqual([reindeerFood]);
  });

  it("removes the most recent entry with -1, and everything without index", () => {
    addReindeerFood();
    env.remove("aggregate", "pet_food_result", -1);
    expect(stripRefIds(env.toJSON()).aggregate).toEqual({
      pet_food_result: [frogFood]
    });
    expect(codeOf(() => env.remove("aggregate", "pet_food_result", 1))).toBe(
      "index_out_of_range"
    );
    env.remove("aggregate", "pet_food_result");
    expect(env.find("aggregate", "pet_food_result")).toEqual([]);
    expect(env.toJSON().aggregate).toEqual({ pet_food_result: [] });
    expect(env.isEmpty()).toBe(false);
    env.remove("query", "message_result");
    expect(env.isEmpty()).toBe(true);
  });
});
