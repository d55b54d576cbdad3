import { describe, expect, it } from "vitest";
import * as zod from "zod/v4";
import * as lean from "./zod-lean";

const LEFT_OUT = ["locales", "core", "compile", "fromJSONSchema"];
const all = zod as unknown as Record<string, unknown>;
const ours = lean as unknown as Record<string, unknown>;

// The tests run ./zod-slim, as Roost's worker does (see zod-slim.test.ts);
// a worker that imports `{ z }` itself aliases this module instead.
describe("zod-lean", () => {
  it("exports every name zod does, each zod's own but `z` and the default", () => {
    for (const name of Object.keys(all))
      if (name !== "z" && name !== "default")
        expect(ours[name], name).toBe(all[name]);
  });

  it("has a `z` with all of zod's `z` but locales, core, compile and fromJSONSchema", () => {
    const z = lean.z as unknown as Record<string, unknown>;
    const full = zod.z as unknown as Record<string, unknown>;
    expect(
      Object.keys(full)
        .filter((name) => !(name in z))
        .sort()
    ).toEqual([...LEFT_OUT].sort());
    for (const name of Object.keys(z)) expect(z[name], name).toBe(full[name]);
    expect(lean.default).toBe(lean.z);
  });
});
