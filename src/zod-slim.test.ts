import * as hono from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import * as zod from "zod/v4";
import * as slim from "./zod-slim";

const all = zod as unknown as Record<string, unknown>;
const ours = slim as unknown as Record<string, unknown>;

describe("zod-slim", () => {
  it("exports every name zod does, each zod's own but `z` and the default", () => {
    for (const name of Object.keys(all))
      if (name !== "z" && name !== "default")
        expect(ours[name], name).toBe(all[name]);
  });

  it("has a `z` holding zod's own ZodType and nothing else, the default export the same", () => {
    expect(Object.keys(slim.z)).toEqual(["ZodType"]);
    expect(slim.z.ZodType).toBe(zod.ZodType);
    expect(slim.default).toBe(slim.z);
  });

  it("is the zod these tests run, as wrangler's alias makes it the deployed worker's", () => {
    expect(hono.z).toBe(slim.z);
    // @hono/zod-openapi extended zod's schemas through that small `z`.
    expect(zod.string()).toHaveProperty("openapi");
    expect(
      zod.object({ name: zod.string() }).openapi("Named").parse({ name: "a" })
    ).toEqual({ name: "a" });
  });
});
