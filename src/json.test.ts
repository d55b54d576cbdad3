import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cloneJson } from "./json";

// Staged values are copied with cloneJson: it must give exactly what a
// JSON round trip gives, for any value, without the round trip's copies
// of every string.
describe("cloneJson", () => {
  const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value));

  it("gives what a JSON round trip gives, for any JSON value", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.dictionary(fc.string({ unit: "binary" }), fc.jsonValue()),
          fc.array(fc.double())
        ),
        (value) => {
          expect(cloneJson(value)).toStrictEqual(roundTrip(value));
        }
      ),
      { seed: 49, numRuns: 1000 }
    );
  });

  it("keeps __proto__ as data, follows JSON on what it leaves out, and shares no object", () => {
    const hostile = JSON.parse('{"__proto__":{"polluted":1},"a":[1]}');
    const copied = cloneJson(hostile) as Record<string, unknown>;
    expect(Object.hasOwn(copied, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(copied.a).not.toBe(hostile.a);
    for (const value of [
      { a: undefined, b: () => 1, c: -0 },
      [undefined, () => 1, Number.NaN, -0],
      new Date(0),
      { when: new Date(0) },
      { toJSON: () => "x" }
    ])
      expect(cloneJson(value)).toStrictEqual(roundTrip(value));
  });
});
