import { describe, expect, it } from "vitest";
import { prepareCode } from "./instrument";
import { resolveCodeLimits } from "./limits";

const body = (code: string) => {
  const prepared = prepareCode(code, "T");
  if (!prepared.ok) throw new Error(prepared.message);
  return prepared.body;
};

describe("prepareCode", () => {
  it("ticks at the start of every loop body and function body", () => {
    expect(body("for (;;) {}")).toBe("for (;;) {T();}");
    expect(body("while (x) y();")).toBe("while (x) {T();y();}");
    expect(body("do x++; while (x < 3)")).toBe("do {T();x++;} while (x < 3)");
    expect(body("function f() { return 1 }")).toBe(
      "function f() {T(); return 1 }"
    );
    expect(body("const f = () => 1;")).toBe("const f = () => (T(),1);");
    expect(body("const f = () => ({ a: 1 });")).toBe(
      "const f = () => ((T(),{ a: 1 }));"
    );
  });

  it("returns a last expression statement, and closes nested edits inner first", () => {
    expect(body("6 * 7")).toBe("return (6 * 7)");
    expect(body("f = () => x")).toBe("return (f = () => (T(),x))");
    expect(body("while (1) g = () => y")).toBe(
      "while (1) {T();g = () => (T(),y)}"
    );
    expect(body("for (;;) for (;;) x;")).toBe(
      "for (;;) {T();for (;;) {T();x;}}"
    );
    expect(body("let a = 1;")).toBe("let a = 1;");
  });

  it("keeps every line where it was", () => {
    const code = "let n = 0;\nfor (const x of [1, 2]) {\n  n += x;\n}\nn";
    expect(body(code).split("\n").length).toBe(code.split("\n").length);
  });

  it("answers a syntax error with its line and column, and refuses modules", () => {
    expect(prepareCode("let = ;", "T")).toEqual({
      ok: false,
      message: expect.stringMatching(/^SyntaxError: .*\(1:\d+\)$/)
    });
    expect(prepareCode("export const x = 1", "T")).toMatchObject({ ok: false });
    expect(prepareCode('await import("x")', "T")).toMatchObject({ ok: false });
  });
});

describe("resolveCodeLimits", () => {
  it("fills defaults and refuses a limit that is unknown or not a whole number > 0", () => {
    expect(resolveCodeLimits({ steps: 5 }).steps).toBe(5);
    expect(resolveCodeLimits().timeoutMs).toBe(5_000);
    expect(() => resolveCodeLimits({ steps: 0 })).toThrow(
      "limits.steps must be a whole number > 0"
    );
    expect(() =>
      resolveCodeLimits({ constructor: 1 } as unknown as { steps: number })
    ).toThrow('unknown limit "constructor"');
  });
});
