// What each operation declares is what it does: its answer parses with its
// output schema, and every event it emits is one it lists.
import { describe, expect, it } from "vitest";
import {
  OPERATIONS,
  type OperationInput,
  type OperationName
} from "../../src/session/operations";
import {
  events,
  newSession,
  ok,
  type SessionApi,
  toolAction
} from "./session-helpers";

const run = async <N extends OperationName>(
  stub: SessionApi,
  name: N,
  input: OperationInput<N>
) => {
  const before = (await events(stub)).length;
  const value = ok(await stub.op(name, input));
  const emitted = (await events(stub)).slice(before).map((e) => e.type);
  const op = OPERATIONS[name];
  if (op.output) expect(() => op.output!().parse(value), name).not.toThrow();
  expect(
    emitted.filter((t) => !(op.events as readonly string[]).includes(t)),
    `${name} emitted events it does not declare`
  ).toEqual([]);
  return emitted;
};

describe("the operation table", () => {
  it("answers with its output schemas and emits only the events it declares", async () => {
    const { stub } = await newSession();
    const seen = new Set<string>();
    const all = async <N extends OperationName>(
      name: N,
      input: OperationInput<N>
    ) => {
      for (const t of await run(stub, name, input)) seen.add(t);
    };
    await all("status", {});
    await all("reset", {});
    await all("step", { action: toolAction("note", { text: "a" }) });
    await all("call", { tool: "bump", arguments: {} });
    await all("addEntry", { tool: "t", name: "k", objects: [{ a: 1 }] });
    await all("replaceEntry", {
      tool: "t",
      name: "k",
      index: 0,
      objects: [{ a: 2 }]
    });
    await all("readStore", { tool: "t", name: "k" });
    await all("storeKeys", {});
    await all("patchState", { key: "count", value: 5 });
    await all("readState", {});
    await all("messages", {});
    await all("frame", {});
    await all("events", { after: 0, limit: 10 });
    await all("removeEntry", { tool: "t", name: "k" });
    // The run covered every kind of write, so the check above had teeth.
    expect([...seen].sort()).toEqual(
      [
        "message",
        "reset",
        "result",
        "state.changed",
        "step",
        "store.changed",
        "tool.finished",
        "tool.started"
      ].sort()
    );
  });
});
