/** @module Tests of the HTTP side: request schemas, JSON values, OpenAPI metadata, limits. */

import { describe, expect, expectTypeOf, it } from "vitest";
import * as z from "zod";
import type { ErrorBody } from "../errors";
import type { LocatedEntry as StoreLocatedEntry } from "../store/types";
import * as protocol from "./index";
import {
  CLOSE_CODES,
  CreateSessionRequestSchema,
  DEFAULT_LIMITS,
  EventsQuerySchema,
  issuesToErrorBody,
  JsonValueSchema,
  LimitsSchema,
  type LocatedEntry,
  StatePatchRequestSchema,
  StepRequestSchema,
  StoreKeyParamsSchema,
  StoreQuerySchema,
  subprotocolsFor,
  tokenFromSubprotocols
} from "./index";
import { findNonJson } from "./json-value";

const toolCall = {
  id: "call_1",
  type: "function",
  function: { name: "search", arguments: '{"q":"x"}' }
};

describe("HTTP request schemas", () => {
  it("refuses task and task_index together, naming both fields", () => {
    const parsed = CreateSessionRequestSchema().safeParse({
      environment: "counter",
      task: { n: 1 },
      task_index: 2
    });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const body = issuesToErrorBody(parsed.error);
    expect(body.code).toBe("invalid_request");
    expect(body.message).toContain('"task"');
    expect(body.message).toContain('"task_index"');
    expect(
      CreateSessionRequestSchema().safeParse({
        environment: "counter",
        task_index: 0,
        location_hint: "weur",
        jurisdiction: "eu"
      }).success
    ).toBe(true);
  });

  it("reads an index path parameter as an integer that may be negative", () => {
    const key = { id: "s", tool: "search", name: "papers" };
    expect(StoreKeyParamsSchema().parse({ ...key, index: "-1" }).index).toBe(
      -1
    );
    expect(StoreKeyParamsSchema().parse({ ...key, index: "3" }).index).toBe(3);
    expect(StoreKeyParamsSchema().parse(key).index).toBeUndefined();
    expect(protocol.StoreEntryParamsSchema().safeParse(key).success).toBe(
      false
    );
    for (const index of ["x", "", "1.5", "1e3", "0x10", " 1"]) {
      expect(StoreKeyParamsSchema().safeParse({ ...key, index }).success).toBe(
        false
      );
    }
  });

  it("answers a malformed name in a path with invalid_name", () => {
    const parsed = StoreKeyParamsSchema().safeParse({
      id: "s",
      tool: "bad/tool",
      name: "papers"
    });
    expect(!parsed.success && issuesToErrorBody(parsed.error).code).toBe(
      "invalid_name"
    );
  });

  it("keeps store query parameters consistent and pages by default", () => {
    expect(StoreQuerySchema().parse({})).toEqual({ limit: 100 });
    expect(
      StoreQuerySchema().parse({
        tool: "t",
        name: "n",
        index: "-1",
        limit: "5"
      })
    ).toEqual({ tool: "t", name: "n", index: -1, limit: 5 });
    expect(StoreQuerySchema().safeParse({ tool: "t" }).success).toBe(false);
    expect(StoreQuerySchema().safeParse({ index: "0" }).success).toBe(false);
    expect(StoreQuerySchema().safeParse({ limit: "0" }).success).toBe(false);
    expect(EventsQuerySchema().parse({ after: "12" })).toEqual({
      after: 12,
      limit: 1000
    });
    // No `after`: every retained event, from the oldest.
    expect(EventsQuerySchema().parse({})).toEqual({ limit: 1000 });
  });

  it("requires a state value, and accepts null as one", () => {
    const missing = StatePatchRequestSchema().safeParse({ key: "notes" });
    expect(missing.success).toBe(false);
    if (!missing.success) {
      expect(issuesToErrorBody(missing.error).message).toContain("value");
    }
    expect(
      StatePatchRequestSchema().safeParse({ key: "notes", value: null }).success
    ).toBe(true);
    expect(
      StatePatchRequestSchema().safeParse({
        key: "notes",
        value: [1],
        handler: "append"
      }).success
    ).toBe(false);
  });

  it("takes a model's assistant message as an action, role optional", () => {
    const fromModel = {
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [toolCall]
    };
    const parsed = StepRequestSchema().parse({ action: fromModel });
    expect(parsed.action).not.toHaveProperty("refusal");
    expect(
      StepRequestSchema().parse({ action: { tool_calls: [toolCall] } }).action
        .role
    ).toBe("assistant");
    expect(
      StepRequestSchema().safeParse({ action: { role: "user", content: "hi" } })
        .success
    ).toBe(false);
  });
});

describe("JsonValueSchema", () => {
  it("accepts JSON and rejects what JSON cannot carry", () => {
    expect(
      JsonValueSchema().safeParse({ a: [1, "b", null, true, { c: [] }] })
        .success
    ).toBe(true);
    const notJson: unknown[] = [
      undefined,
      () => 1,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      new Date(0),
      { a: undefined },
      [1, () => 2],
      { nested: { n: Number.NaN } },
      new Map()
    ];
    for (const value of notJson) {
      expect(JsonValueSchema().safeParse(value).success).toBe(false);
    }
  });
});

describe("findNonJson", () => {
  const nest = (depth: number, leaf: unknown): unknown =>
    depth === 0 ? leaf : { a: [nest(depth - 1, leaf)] };

  it("names the first non-JSON value at any depth, and passes JSON however deep or shared", () => {
    expect(findNonJson(nest(200, "leaf"))).toBeUndefined();
    const shared = { x: 1 };
    expect(findNonJson({ a: shared, b: [shared, shared] })).toBeUndefined();
    expect(findNonJson(nest(2, Number.NaN))).toEqual({
      path: ["a", 0, "a", 0],
      what: "NaN"
    });
    expect(findNonJson(nest(100, undefined))?.what).toBe("undefined");
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point.
    expect(findNonJson({ list: [1, , 3] })).toEqual({
      path: ["list", 1],
      what: "undefined"
    });
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(findNonJson(cycle)).toEqual({ path: ["self"], what: "a cycle" });
    expect(findNonJson({ when: new Date(0) })?.what).toBe("a Date");
  });
});

describe("schema metadata", () => {
  const exported: Record<string, unknown> = protocol;
  // Schemas are exported as the getters `lazy` gives (no parameters).
  const schemas = Object.entries(exported).flatMap(([name, value]) => {
    const schema =
      typeof value === "function" && value.length === 0 && /Schema$/.test(name)
        ? value()
        : value;
    return schema instanceof z.ZodType ? [[name, schema] as const] : [];
  });
  const withId = schemas.filter(([, s]) => z.globalRegistry.get(s)?.id);

  it("gives every request and response body a component id", () => {
    const ids = withId.map(([, s]) => z.globalRegistry.get(s)?.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        "CreateSessionRequest",
        "EventFrame",
        "ErrorResponse"
      ])
    );
  });

  it("converts every named schema to JSON Schema, for OpenAPI", () => {
    expect(withId.length).toBeGreaterThan(40);
    for (const [name, schema] of withId) {
      for (const io of ["input", "output"] as const) {
        expect(() => z.toJSONSchema(schema, { io }), name).not.toThrow();
      }
    }
  });

  it("converts path and query schemas as their string input", () => {
    for (const [name, schema] of schemas) {
      expect(() => z.toJSONSchema(schema, { io: "input" }), name).not.toThrow();
    }
  });
});

describe("limits, close codes and subprotocols", () => {
  it("fills every default limit", () => {
    expect(LimitsSchema().parse({})).toEqual(DEFAULT_LIMITS);
    expect(LimitsSchema().parse({ jsonDepth: 8 }).jsonDepth).toBe(8);
    expect(LimitsSchema().safeParse({ jsonDepth: 0 }).success).toBe(false);
  });

  it("closes with 44xx codes a client must not retry", () => {
    for (const code of Object.values(CLOSE_CODES)) {
      expect(protocol.isTerminalCloseCode(code)).toBe(true);
    }
    expect(protocol.isTerminalCloseCode(1006)).toBe(false);
  });

  it("carries the token in the subprotocol list", () => {
    const header = subprotocolsFor("v1.k1.abc_-").join(", ");
    expect(header).toBe("roost.v1, roost.token.v1.k1.abc_-");
    expect(tokenFromSubprotocols(header)).toBe("v1.k1.abc_-");
    expect(tokenFromSubprotocols("roost.v1")).toBeUndefined();
    expect(tokenFromSubprotocols(null)).toBeUndefined();
  });

  it("matches the store's own types", () => {
    expectTypeOf<LocatedEntry>().toExtend<StoreLocatedEntry>();
    expectTypeOf<StoreLocatedEntry>().toExtend<LocatedEntry>();
    expectTypeOf<
      z.infer<ReturnType<typeof protocol.ErrorBodySchema>>
    >().toExtend<ErrorBody>();
  });
});
