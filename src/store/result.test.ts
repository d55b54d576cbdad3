import { describe, expect, it } from "vitest";
import { RoostError } from "../errors";
import { describeResult, result } from "./result";

const rows = [{ title: "Kettle" }, { title: "Toaster" }];

describe("result()", () => {
  it("carries a payload type and mapping only when given", () => {
    expect(result({ objects: rows })).not.toHaveProperty("payloadType");
    expect(result({ objects: rows })).not.toHaveProperty("mapping");
    expect(
      result({
        objects: rows,
        payloadType: "document",
        mapping: { title: "title" }
      })
    ).toMatchObject({ payloadType: "document", mapping: { title: "title" } });
  });

  it("refuses a mapping value that is not a string, naming the field", () => {
    const bad = () =>
      result({
        objects: rows,
        mapping: { title: null } as unknown as Record<string, string>
      });
    expect(bad).toThrow(RoostError);
    expect(bad).toThrow(/mapping\.title must be a string/);
  });

  it("refuses a payload type that is not a name", () => {
    expect(() => result({ objects: rows, payloadType: "a table" })).toThrow(
      /Invalid payloadType "a table"/
    );
  });
});

describe("describeResult", () => {
  it("says what it always said for a result without a payload type", () => {
    expect(describeResult(result({ name: "hits", objects: rows }))).toBe(
      'Stored 2 object(s) under "hits".'
    );
    expect(
      describeResult(
        result({ name: "hits", objects: rows, payloadType: "default" })
      )
    ).toBe('Stored 2 object(s) under "hits".');
  });

  it("adds that a typed result was displayed, unless it is hidden", () => {
    const table = { name: "hits", objects: rows, payloadType: "table" };
    expect(describeResult(result(table))).toBe(
      'Stored 2 object(s) under "hits", displayed to the user as a table.'
    );
    expect(describeResult(result({ ...table, display: false }))).toBe(
      'Stored 2 object(s) under "hits".'
    );
  });

  it("fills {payload_type}, as default when there is none", () => {
    const llmMessage =
      "Displayed: A {payload_type} object with {count} objects.";
    expect(
      describeResult(
        result({ objects: rows, payloadType: "table", llmMessage })
      )
    ).toBe("Displayed: A table object with 2 objects.");
    expect(describeResult(result({ objects: rows, llmMessage }))).toBe(
      "Displayed: A default object with 2 objects."
    );
  });
});
