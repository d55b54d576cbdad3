import { describe, expect, it } from "vitest";
import { RoostError } from "../errors";
import { COMPONENT_ERROR_BYTES } from "./component";
import { gate } from "./gate";
import { sequence } from "./sequence";
import type { StepRewardArgs } from "./types";
import { defineRubric, weightedSum } from "./weighted-sum";

// The combinators only pass their arguments on; a step's number is enough
// to tell what each function saw.
const args = {
  action: { role: "assistant", content: "" },
  observations: [],
  ctx: {} as never,
  step: 3
} as StepRewardArgs;
const score = (r: { score(a: StepRewardArgs): Promise<unknown> }) =>
  r.score(args);

describe("weightedSum / defineRubric", () => {
  it("adds weighted components, reports each in declared order, weight 0 as a metric", async () => {
    const rubric = defineRubric(
      {
        exact: () => 1,
        close: () => 0.5,
        format: () => true,
        length: ({ step }) => step
      },
      { weights: { close: 2, format: 0, length: 0 } }
    );
    const scored = await score(rubric);
    expect(scored).toEqual({
      value: 2,
      entries: [
        ["exact", 1],
        ["close", 0.5],
        ["format", 1],
        ["length", 3]
      ]
    });
    expect(rubric.paths).toEqual(["exact", "close", "format", "length"]);
  });

  it("reports a component that throws as its error, counts it 0 and scores the rest", async () => {
    const rubric = weightedSum({
      broken: () => {
        throw new Error("no answer submitted");
      },
      nan: () => Number.NaN,
      async later() {
        return 0.25;
      }
    });
    expect(await score(rubric)).toEqual({
      value: 0.25,
      entries: [
        ["broken", { value: 0, error: "no answer submitted" }],
        [
          "nan",
          { value: 0, error: "returned NaN, not a finite number or a boolean" }
        ],
        ["later", 0.25]
      ]
    });
  });

  it("caps a thrown message, so a component cannot grow every step event by it", async () => {
    const rubric = weightedSum({
      huge: () => {
        throw new Error("x".repeat(1_000_000));
      }
    });
    const { entries } = (await score(rubric)) as {
      entries: [[string, { error: string }]];
    };
    const [[, report]] = entries;
    expect(new TextEncoder().encode(report.error).length).toBeLessThan(
      COMPONENT_ERROR_BYTES + 100
    );
    expect(report.error).toMatch(/\[truncated: \d+ more bytes\]$/);
  });

  it("names nested rubrics by path, the parent before its children", async () => {
    const rubric = defineRubric(
      {
        format: () => 1,
        answer: defineRubric(
          { exact: () => 1, close: () => 0 },
          { weights: { close: 0.5 } }
        )
      },
      { weights: { answer: 3, format: 0 } }
    );
    const scored = await score(rubric);
    expect(scored).toEqual({
      value: 3,
      entries: [
        ["format", 1],
        ["answer", 1],
        ["answer.exact", 1],
        ["answer.close", 0]
      ]
    });
  });

  it("refuses weights of no component, bad names and empty rubrics when defined", () => {
    expect(() =>
      defineRubric({ a: () => 1 }, { weights: { b: 1 } as never })
    ).toThrow(/names no component/);
    expect(() => defineRubric({ "1st": () => 1 })).toThrow(RoostError);
    expect(() => defineRubric({ "a.b": () => 1 })).toThrow(/must match/);
    expect(() => defineRubric({})).toThrow(/needs a component/);
    expect(() =>
      defineRubric({ a: () => 1 }, { weights: { a: Number.POSITIVE_INFINITY } })
    ).toThrow(/finite/);
  });
});

describe("gate", () => {
  const inner = defineRubric({ exact: () => 1, close: () => 0.5 });

  it("scores the rubric beside a passing check", async () => {
    expect(await score(gate(() => true, inner))).toEqual({
      value: 1.5,
      entries: [
        ["check", 1],
        ["exact", 1],
        ["close", 0.5]
      ]
    });
  });

  it("zeroes and skips the rest when the check fails or throws; the check is reported", async () => {
    const ran: string[] = [];
    const watched = defineRubric({
      exact: () => {
        ran.push("exact");
        return 1;
      }
    });
    expect(await score(gate(() => 0, watched))).toEqual({
      value: 0,
      entries: [
        ["check", 0],
        ["exact", { skipped: true }]
      ]
    });
    const thrown = await score(
      gate(() => {
        throw new Error("bad format");
      }, watched)
    );
    expect(thrown).toEqual({
      value: 0,
      entries: [
        ["check", { value: 0, error: "bad format" }],
        ["exact", { skipped: true }]
      ]
    });
    expect(ran).toEqual([]);
  });

  it("gates a lone function as `score`, with a threshold", async () => {
    const g = gate(
      () => 0.6,
      () => 4,
      { threshold: 0.5 }
    );
    expect(await score(g)).toEqual({
      value: 4,
      entries: [
        ["check", 0.6],
        ["score", 4]
      ]
    });
    expect(g.paths).toEqual(["check", "score"]);
  });

  it("inside a rubric, its entries sit under its name", async () => {
    const rubric = defineRubric({
      answer: gate(() => false, inner),
      format: () => 1
    });
    expect(await score(rubric)).toEqual({
      value: 1,
      entries: [
        ["answer", 0],
        ["answer.check", 0],
        ["answer.exact", { skipped: true }],
        ["answer.close", { skipped: true }],
        ["format", 1]
      ]
    });
  });

  it("refuses a gated rubric with a component named check", () => {
    expect(() => gate(() => 1, defineRubric({ check: () => 1 }))).toThrow(
      /named "check"/
    );
  });
});

describe("sequence", () => {
  it("is the last component's value when none scored 0", async () => {
    expect(
      await score(
        sequence({ parses: () => 1, valid: () => 1, exact: () => 0.75 })
      )
    ).toEqual({
      value: 0.75,
      entries: [
        ["parses", 1],
        ["valid", 1],
        ["exact", 0.75]
      ]
    });
  });

  it("stops at the first 0 (or throw), later ones skipped and never run", async () => {
    let ran = false;
    const later = () => {
      ran = true;
      return 1;
    };
    const s = sequence({
      parses: () => 1,
      valid: () => false,
      exact: later,
      nested: defineRubric({ a: later })
    });
    expect(await score(s)).toEqual({
      value: 0,
      entries: [
        ["parses", 1],
        ["valid", 0],
        ["exact", { skipped: true }],
        ["nested", { skipped: true }],
        ["nested.a", { skipped: true }]
      ]
    });
    const thrown = await score(
      sequence({
        parses: () => {
          throw new Error("not JSON");
        },
        exact: later
      })
    );
    expect(thrown).toEqual({
      value: 0,
      entries: [
        ["parses", { value: 0, error: "not JSON" }],
        ["exact", { skipped: true }]
      ]
    });
    expect(ran).toBe(false);
  });
});

describe("metrics", () => {
  const one = () => 1;
  it("names weight-0 components and everything below them, by path relative to the rubric", () => {
    const rubric = weightedSum(
      {
        answer: gate(one, defineRubric({ exact: one, close: one })),
        style: defineRubric({ short: one, polite: one }),
        length: one
      },
      { weights: { style: 0, length: 0 } }
    );
    expect(rubric.metrics).toEqual([
      "style",
      "style.short",
      "style.polite",
      "length"
    ]);
  });

  it("keeps a nested rubric's own metrics under its name, through gates and sequences", () => {
    const inner = defineRubric(
      { exact: one, format: one },
      { weights: { format: 0 } }
    );
    expect(weightedSum({ answer: inner }).metrics).toEqual(["answer.format"]);
    expect(gate(one, inner).metrics).toEqual(["format"]);
    expect(gate(inner, one).metrics).toEqual(["check.format"]);
    expect(sequence({ first: one, last: inner }).metrics).toEqual([
      "last.format"
    ]);
    expect(defineRubric({ exact: one }).metrics).toEqual([]);
  });
});
