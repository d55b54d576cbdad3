import { describe, expect, it } from "vitest";
import * as z from "zod";
import { tool } from "./define-tool";
import { openAITool, parametersSchema } from "./json-schema";

describe("tool JSON schema", () => {
  const search = tool({
    description: "Search the corpus.",
    input: z.object({
      query: z.string().describe("The query text."),
      limit: z.number().int().default(5).describe("Max results."),
      mode: z.enum(["fast", "slow"]).optional(),
      kind: z.union([z.literal("a"), z.number()]),
      user_context: z.string()
    }),
    inputsFromState: {},
    run: () => "ok"
  });

  it("maps descriptions, defaults, enums, optional fields and unions", () => {
    const schema = parametersSchema(search.input);
    expect(schema.type).toBe("object");
    expect(schema.properties).toMatchObject({
      query: { type: "string", description: "The query text." },
      limit: { type: "integer", default: 5, description: "Max results." },
      mode: { type: "string", enum: ["fast", "slow"] },
      kind: { anyOf: [{ const: "a" }, { type: "number" }] }
    });
    // Defaulted and optional parameters are not required.
    expect(schema.required).toEqual(["query", "kind", "user_context"]);
    expect(schema).not.toHaveProperty("$schema");
  });

  it("hides parameters that state fills", () => {
    const schema = parametersSchema(search.input, ["user_context"]);
    expect(Object.keys(schema.properties as object)).not.toContain(
      "user_context"
    );
    expect(schema.required).toEqual(["query", "kind"]);
  });

  it("gives a zero-argument tool an empty required list", () => {
    expect(openAITool("incr", "Increment.", z.object({}))).toEqual({
      type: "function",
      function: {
        name: "incr",
        description: "Increment.",
        parameters: { type: "object", properties: {}, required: [] }
      }
    });
  });

  it("rejects a tool whose inputsFromState names no parameter", () => {
    expect(() =>
      tool({
        description: "x",
        input: z.object({ a: z.string() }),
        // @ts-expect-error b is not a parameter
        inputsFromState: { user: "b" },
        run: () => ""
      })
    ).toThrow(/unknown parameter "b"/);
  });

  it("rejects names models cannot call", () => {
    expect(() =>
      tool({
        name: "no spaces",
        description: "x",
        input: z.object({}),
        run: () => ""
      })
    ).toThrow(/must match/);
  });
});
