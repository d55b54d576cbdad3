/** @module defineState: schema checks, default handlers, initial values, JSON Schema, validation. */

import { describe, expect, it } from "vitest";
import * as z from "zod";
import { expectError } from "./case-helpers";
import { defineState } from "./define-state";
import { mergeLists, replaceValues } from "./handlers";

describe("defineState", () => {
  it("refuses a messages key: it is always the transcript", () => {
    const error = expectError(
      () => defineState({ messages: { type: z.array(z.string()) } }),
      "invalid_request"
    );
    expect(error.message).toContain("messages");
    expect(error.message).toContain("transcript");
  });

  it("refuses key names outside the function-name rule", () => {
    for (const key of ["", "a b", "ü", "x".repeat(65), "a.b"]) {
      expectError(
        () => defineState({ [key]: { type: z.string() } }),
        "invalid_name"
      );
    }
    expect(defineState({ "a-B_9": { type: z.string() } }).keys()).toEqual([
      "a-B_9"
    ]);
  });

  it("refuses a type that is not a zod schema and a handler that is not a function", () => {
    const notZod = { n: { type: "string" } } as never;
    expectError(() => defineState(notZod), "invalid_request");
    expectError(() => defineState({ n: null } as never), "invalid_request");
    const badHandler = { n: { type: z.string(), handler: 42 } } as never;
    expectError(() => defineState(badHandler), "invalid_request");
  });

  it("merges arrays by default, through default/prefault/optional/readonly", () => {
    const def = defineState({
      plain: { type: z.array(z.string()) },
      withDefault: { type: z.array(z.string()).default([]) },
      prefault: { type: z.array(z.string()).prefault([]) },
      optional: { type: z.array(z.string()).optional() },
      readonly: { type: z.array(z.string()).readonly() },
      stacked: { type: z.array(z.number()).optional().default([]) }
    });
    for (const key of def.keys()) expect(def.handlerFor(key)).toBe(mergeLists);
  });

  it("replaces everything else, nullable arrays included", () => {
    const def = defineState({
      nullable: { type: z.array(z.string()).nullable() },
      tuple: { type: z.tuple([z.number()]) },
      record: { type: z.record(z.string(), z.number()) },
      text: { type: z.string().default("") },
      union: { type: z.union([z.array(z.string()), z.string()]) }
    });
    for (const key of def.keys()) {
      expect(def.handlerFor(key)).toBe(replaceValues);
    }
  });

  it("keeps a handler given in the schema", () => {
    const handler = (_c: number | undefined, i: unknown) => Number(i) * 2;
    const def = defineState({ n: { type: z.number(), handler } });
    expect(def.handlerFor("n")).toBe(handler);
    expectError(() => def.handlerFor("nope"), "unknown_state_key");
  });

  it("takes initial values from zod defaults only", () => {
    const def = defineState({
      count: { type: z.number().default(0) },
      list: { type: z.array(z.string()).default(["a"]) },
      pre: { type: z.object({ n: z.number().default(1) }).prefault({}) },
      optional: { type: z.string().optional() },
      required: { type: z.string() }
    });
    expect(def.initialValues()).toEqual({
      count: 0,
      list: ["a"],
      pre: { n: 1 }
    });
    const first = def.initialValues();
    (first.list as string[]).push("leak");
    expect(def.initialValue("list")).toEqual(["a"]);
    expect(def.initialValue("optional")).toBeUndefined();
  });

  it("refuses a default that is not JSON", () => {
    expectError(
      () => defineState({ at: { type: z.date().default(new Date(0)) } }),
      "invalid_request"
    );
  });

  it("describes each key's input as JSON Schema, {} when zod cannot", () => {
    const schema = defineState({
      count: { type: z.number().default(0) },
      big: { type: z.bigint() }
    }).jsonSchema();
    expect(schema.count).toMatchObject({ type: "number", default: 0 });
    expect(schema.big).toEqual({});
  });

  it("validates a value, naming the key and the zod issues", () => {
    const def = defineState({
      profile: { type: z.object({ id: z.number() }) }
    });
    expect(def.validate("profile", { id: 1, x: 2 })).toEqual({ id: 1 });
    const error = expectError(
      () => def.validate("profile", { id: "1" }),
      "invalid_state_value"
    );
    expect(error.message).toMatch(/^profile: id: /);
    expect(error.details).toMatchObject({
      key: "profile",
      issues: [{ path: ["id"] }]
    });
    expectError(() => def.validate("nope", 1), "unknown_state_key");
  });
});
