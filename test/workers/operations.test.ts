// Every operation of the table, each run through the object's `op`: its
// answer parses with its output schema and it emits only the events it
// declares. The cases (operations.case.ts) are keyed by the table's names,
// so an operation added to the table without a case fails to typecheck,
// and one a case forgot fails the first test.

import { describe, expect, it } from "vitest";
import { toolCalls } from "../../src/messages/build";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import type { OperationName } from "../../src/session/operations";
import { lab, run } from "./operation-sessions";
import { CASES } from "./operations.case";
import { err, events, type SessionApi } from "./session-helpers";
import { OPERATIONS } from "./tables";

const NAMES = Object.keys(OPERATIONS) as OperationName[];

/** Cases whose session has a run going, whose events are its start's. */
const ALONGSIDE: Partial<Record<OperationName, OperationName>> = {
  readRun: "startRun",
  cancelRun: "startRun",
  cancelTask: "startTask"
};

/** Every event type the operations under test emitted. */
const seen = new Set<string>();

describe("the operation table", () => {
  it("has a case for every operation, and no case for one it lacks", () => {
    expect(Object.keys(CASES).sort()).toEqual([...NAMES].sort());
  });

  it.each(NAMES)(
    "%s answers with its output schema and emits only the events it declares",
    async (name) => {
      const watched: { stub: SessionApi; before: number }[] = [];
      const value = await CASES[name]({
        on: async (s, before) => {
          const at = before ?? (await events(s.stub)).length;
          watched.push({ stub: s.stub, before: at });
        }
      });
      const op = OPERATIONS[name];
      const declared: readonly string[] = [
        ...op.events,
        ...(name in ALONGSIDE ? OPERATIONS[ALONGSIDE[name]!].events : [])
      ];
      if (op.output)
        expect(() => op.output!().parse(value), name).not.toThrow();
      for (const w of watched) {
        const emitted = (await events(w.stub))
          .slice(w.before)
          .map((e) => e.type as string);
        for (const t of emitted) seen.add(t);
        expect(
          emitted.filter((t) => !declared.includes(t)),
          `${name} emitted events it does not declare`
        ).toEqual([]);
      }
    }
  );

  it("watched every kind of write, so the checks above had teeth", () => {
    for (const type of [
      "reset",
      "step",
      "tool.started",
      "result",
      "tool.finished",
      "store.changed",
      "state.changed",
      "message",
      "forked"
    ])
      expect(seen, type).toContain(type);
  });
});

describe("dispatch", () => {
  it("parses every input with its operation's schema, whoever calls, and a refused input changes nothing", async () => {
    const s = await lab();
    const before = await run(s, "status", {});
    const bad = err(
      await s.stub.op("step", { action: 5 } as never, SERVER_GRANT, "key-1")
    );
    expect(bad).toMatchObject({ code: "invalid_request" });
    expect(bad.message).toContain("action");
    const { last_used_at: _a, ...was } = before;
    const { last_used_at: _b, ...now } = await run(s, "status", {});
    expect(now).toEqual(was);
    // The key was not bound to the refused input.
    const step = await run(
      s,
      "step",
      { action: toolCalls({ name: "bump", arguments: {} }) },
      "key-1"
    );
    expect(step.done).toBe(false);
  });

  it("refuses a name that is not in the table", async () => {
    const s = await lab();
    for (const name of ["nope", "toString", "__proto__"]) {
      expect(
        err(await s.stub.op(name as never, {} as never, SERVER_GRANT))
      ).toMatchObject({
        code: "invalid_request"
      });
    }
  });
});
