import { describe, expect, it } from "vitest";
import { RunChunks, type RunEvent, SSE_DONE, sseData } from "./ui-chunks";

const RUN = "r1";
const call = (pass: number, n: number, tool: string) =>
  `${RUN}_${pass}_${n}_${tool}`;

let seq = 0;
const ev = (type: string, fields: Record<string, unknown> = {}): RunEvent => ({
  seq: ++seq,
  type,
  at: "2026-01-01T00:00:00.000Z",
  episode: 1,
  ...fields
});

const decision = (pass: number, node: string, option: string, extra = {}) =>
  ev("tree.decision", {
    run_id: RUN,
    payload: {
      pass,
      node,
      option,
      kind: "tool",
      inputs: {},
      end: false,
      impossible: false,
      message: "",
      ...extra
    }
  });

const toolMessage = (id: string, content: string, isError = false) =>
  ev("message", {
    message: {
      role: "tool",
      tool_call_id: id,
      name: id.split("_").at(-1),
      content,
      is_error: isError
    },
    index: 3
  });

const translate = (events: RunEvent[]) => {
  const t = new RunChunks(RUN);
  return [...t.start(), ...events.flatMap((e) => t.push(e))];
};

describe("RunChunks", () => {
  it("makes a run one message: steps per pass, text, tools, Results and the end", () => {
    const probe = call(1, 3, "probe");
    const chunks = translate([
      ev("message", { message: { role: "user", content: "multi" }, index: 1 }),
      decision(1, "root", "grove", { kind: "branch", message: "Into." }),
      ev("update", { kind: "text", payload: { text: "Into." } }),
      decision(1, "grove", "probe", { inputs: { depth: 2 } }),
      ev("tool.started", {
        call_id: probe,
        tool: "probe",
        arguments: { depth: 2 }
      }),
      ev("update", {
        kind: "text",
        payload: { text: "Found." },
        call_id: probe
      }),
      ev("store.changed", {
        op: "add",
        tool: "probe",
        name: "probes",
        index: 0
      }),
      ev("result", {
        call_id: probe,
        tool: "probe",
        name: "probes",
        index: 0,
        objects: [{ depth: 2 }],
        metadata: {},
        display: true,
        payload_type: "table"
      }),
      ev("tool.finished", { call_id: probe, tool: "probe", is_error: false }),
      toolMessage(probe, "probed at 2"),
      decision(2, "root", "text_response", { kind: "text" }),
      ev("tree.completed", {
        run_id: RUN,
        payload: {
          state: "completed",
          outcome: "answered",
          text: "Done.",
          passes: 2
        }
      })
    ]);
    expect(chunks.map((c) => c.type)).toEqual([
      "start",
      "start-step",
      "data-decision",
      "data-tree",
      "text-start",
      "text-delta",
      "text-end",
      "data-decision",
      "data-tree",
      "tool-input-start",
      "tool-input-available",
      "text-start",
      "text-delta",
      "text-end",
      "data-result",
      "tool-output-available",
      "finish-step",
      "start-step",
      "data-decision",
      "data-tree",
      "text-start",
      "text-delta",
      "text-end",
      "finish-step",
      "data-tree",
      "finish"
    ]);
    expect(chunks[0]).toEqual({
      type: "start",
      messageId: RUN,
      messageMetadata: { run_id: RUN }
    });
    expect(chunks.find((c) => c.type === "tool-input-available")).toEqual({
      type: "tool-input-available",
      toolCallId: probe,
      toolName: "probe",
      input: { depth: 2 },
      dynamic: true,
      providerExecuted: true
    });
    expect(chunks.find((c) => c.type === "data-result")).toMatchObject({
      id: "result-probe/probes/0",
      data: {
        tool: "probe",
        name: "probes",
        index: 0,
        objects: [{ depth: 2 }],
        payload_type: "table",
        call_id: probe
      }
    });
    expect(chunks.at(-2)).toEqual({
      type: "data-tree",
      id: "tree",
      data: {
        run_id: RUN,
        state: "completed",
        node: "root",
        outcome: "answered"
      }
    });
    expect(chunks.at(-1)).toEqual({
      type: "finish",
      finishReason: "stop",
      messageMetadata: {
        run_id: RUN,
        state: "completed",
        outcome: "answered",
        passes: 2
      }
    });
  });

  it("does not repeat a final answer the last text part already said", () => {
    const chunks = translate([
      decision(1, "root", "text_response", { kind: "text", message: "Same." }),
      ev("update", { kind: "text", payload: { text: "Same." } }),
      ev("tree.completed", {
        run_id: RUN,
        payload: { state: "completed", outcome: "answered", text: "Same." }
      })
    ]);
    expect(chunks.filter((c) => c.type === "text-delta")).toHaveLength(1);
  });

  it("reports a tool's error result, progress as transient data, and a failed run as error", () => {
    const flaky = call(1, 2, "flaky");
    const chunks = translate([
      ev("tool.started", { call_id: flaky, tool: "flaky", arguments: {} }),
      ev("update", {
        kind: "self_healing_error",
        payload: { message: "Try again." },
        call_id: flaky
      }),
      toolMessage(flaky, "Try again.", true),
      ev("tree.completed", {
        run_id: RUN,
        payload: {
          state: "failed",
          error: { code: "model_error", message: "down" }
        }
      })
    ]);
    expect(chunks.find((c) => c.type === "data-update")).toEqual({
      type: "data-update",
      data: {
        kind: "self_healing_error",
        message: "Try again.",
        call_id: flaky
      },
      transient: true
    });
    expect(chunks.find((c) => c.type === "tool-output-error")).toMatchObject({
      toolCallId: flaky,
      errorText: "Try again."
    });
    expect(chunks.slice(-3).map((c) => c.type)).toEqual([
      "data-tree",
      "error",
      "finish"
    ]);
    expect(chunks.at(-2)).toEqual({ type: "error", errorText: "down" });
  });

  it("ignores other runs, other callers' tools, unknown types and seqs already taken", () => {
    const t = new RunChunks(RUN);
    const mine = decision(1, "root", "grove");
    expect(t.push(mine)).not.toEqual([]);
    expect(t.push(mine)).toEqual([]);
    expect(t.push({ ...mine, seq: 1 })).toEqual([]);
    expect(
      t.push(ev("tree.decision", { run_id: "other", payload: { pass: 1 } }))
    ).toEqual([]);
    expect(
      t.push(ev("tool.started", { call_id: "c1", tool: "x", arguments: {} }))
    ).toEqual([]);
    expect(t.push(ev("tree.node", { run_id: RUN, node: "grove" }))).toEqual([]);
    expect(t.push(ev("state.changed", { key: "k", value: 1 }))).toEqual([]);
    expect(t.done).toBe(false);
  });

  it("joins a split Result's parts into one data part", () => {
    const probe = call(1, 2, "probe");
    const part = (index: number, objects: unknown[]) =>
      ev("result", {
        call_id: probe,
        tool: "probe",
        name: "big",
        index: 0,
        objects,
        metadata: {},
        display: true,
        part: { index, count: 2 }
      });
    const chunks = translate([part(0, [{ a: 1 }]), part(1, [{ a: 2 }])]);
    const results = chunks.filter((c) => c.type === "data-result");
    expect(results).toHaveLength(1);
    expect(results[0]!.data).toMatchObject({ objects: [{ a: 1 }, { a: 2 }] });
    expect(results[0]!.data).not.toHaveProperty("part");
  });

  it("takes back an aborted pass with reset-step, and its retry fills the same step", () => {
    const wait1 = call(2, 4, "wait");
    const first = decision(2, "grove", "wait");
    const chunks = translate([
      decision(1, "root", "grove", { kind: "branch" }),
      first,
      ev("tool.started", { call_id: wait1, tool: "wait", arguments: {} }),
      ev("step.aborted", { first_seq: first.seq }),
      decision(2, "grove", "wait"),
      ev("tool.started", { call_id: wait1, tool: "wait", arguments: {} }),
      toolMessage(wait1, "opened")
    ]);
    const types = chunks.map((c) => c.type);
    expect(types.filter((t) => t === "reset-step")).toHaveLength(1);
    // Pass 1, then pass 2 once: its retry does not open another step.
    expect(types.filter((t) => t === "start-step")).toHaveLength(2);
    // The retried call is announced again after the reset.
    const afterReset = types.slice(types.indexOf("reset-step"));
    expect(afterReset).toContain("tool-input-available");
    expect(afterReset).toContain("tool-output-available");
  });

  it("ignores an abort of someone else's mutation", () => {
    const t = new RunChunks(RUN);
    t.push(decision(1, "root", "grove"));
    const later = ev("state.changed", { key: "k", value: 1 });
    t.push(later);
    expect(t.push(ev("step.aborted", { first_seq: later.seq }))).toEqual([]);
  });

  it("ends a run whose end event is gone from the log as its status says", () => {
    const t = new RunChunks(RUN);
    expect(t.end("cancelled").map((c) => c.type)).toEqual([
      "data-tree",
      "finish"
    ]);
    expect(t.done).toBe(true);
    expect(t.end("cancelled")).toEqual([]);
  });

  it("frames chunks as SSE data events", () => {
    expect(sseData({ type: "start" })).toBe('data: {"type":"start"}\n\n');
    expect(SSE_DONE).toBe("data: [DONE]\n\n");
  });
});
