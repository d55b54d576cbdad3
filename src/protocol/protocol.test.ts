/** @module Tests of the WebSocket side: parsing client frames, event and connection frames. */

import { describe, expect, it } from "vitest";
import type { ErrorBody } from "../errors";
import {
  CLIENT_FRAME_TYPES,
  closeReplyCode,
  DEFAULT_LIMITS,
  EVENT_TYPES,
  type EventFrame,
  EventFrameSchema,
  type IssueDetail,
  PING_FRAME,
  PONG_FRAME,
  parseClientFrame,
  ResetRequestSchema,
  type ServerFrame,
  ServerFrameSchema,
  selectSubprotocol
} from "./index";

const AT = "2026-04-01T12:00:00.000Z";
const base = { at: AT, episode: 1 };

const failure = (text: string | ArrayBuffer) => {
  const parsed = parseClientFrame(text);
  if (parsed.ok) throw new Error(`expected ${String(text)} to be rejected`);
  return parsed;
};

const toolCall = {
  id: "call_1",
  type: "function",
  function: { name: "search", arguments: '{"q":"x"}' }
};

describe("parseClientFrame", () => {
  it("accepts a valid example of every client frame", () => {
    const frames = [
      { type: "step", id: "1", action: { tool_calls: [toolCall] } },
      { type: "reset", id: "2", idempotency_key: "k", task: { topic: "x" } },
      { type: "call", id: "3", tool: "search" },
      { type: "cancel", id: "4", run_id: "r1" },
      { type: "fork", id: "5", count: 3 },
      { type: "op", id: "6", op: "readState", input: { keys: "count" } },
      { type: "resume", after: 17 },
      { type: "ack", seq: 17 },
      { type: "ping" }
    ];
    const types = frames.map((frame) => {
      const parsed = parseClientFrame(JSON.stringify(frame));
      expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
      return parsed.ok ? parsed.frame.type : "";
    });
    expect(types.sort()).toEqual([...CLIENT_FRAME_TYPES()].sort());
  });

  it("fills the defaults a client may leave out", () => {
    const step = parseClientFrame(
      JSON.stringify({ type: "step", id: "1", action: { tool_calls: [] } })
    );
    expect(step.ok && step.frame).toMatchObject({
      action: { role: "assistant", tool_calls: [] }
    });
    const call = parseClientFrame('{"type":"call","id":"3","tool":"search"}');
    expect(call.ok && call.frame).toMatchObject({ arguments: {} });
  });

  it("accepts as a reset frame exactly the bodies POST …/reset accepts", () => {
    const bodies = [
      {},
      { task: { topic: "x" } },
      { task: null },
      { task_index: 0 },
      { task_index: 2, split: "train" },
      { state: { count: 1 } },
      { task: 1, task_index: 0 },
      { split: "train" },
      { task_index: -1 },
      { task_index: 0, split: "not a name" },
      { state: [] },
      { topic: "x" }
    ];
    const accepted = bodies.map((body) => {
      const frame = parseClientFrame(
        JSON.stringify({ type: "reset", id: "1", ...body })
      );
      expect(frame.ok, JSON.stringify(body)).toBe(
        ResetRequestSchema().safeParse(body).success
      );
      return frame.ok;
    });
    expect(accepted).toEqual([...Array(6).fill(true), ...Array(6).fill(false)]);
  });

  it("reads the exact ping frame and binary UTF-8 frames", () => {
    expect(parseClientFrame(PING_FRAME)).toEqual({
      ok: true,
      frame: { type: "ping" }
    });
    expect(JSON.parse(PONG_FRAME)).toEqual({ type: "pong" });
    const bytes = new TextEncoder().encode(PING_FRAME);
    expect(parseClientFrame(bytes.buffer as ArrayBuffer).ok).toBe(true);
  });

  it("answers text that is not JSON with invalid_json", () => {
    expect(failure("{type:").error.code).toBe("invalid_json");
    expect(failure("").error.code).toBe("invalid_json");
    const badUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]).buffer;
    expect(failure(badUtf8).error.code).toBe("invalid_json");
  });

  it("measures size in UTF-8 bytes, not characters", () => {
    // 400 000 characters of 3 bytes each: under 1 MiB in length, over in bytes.
    const text = JSON.stringify({ type: "ping", pad: "€".repeat(400_000) });
    expect(text.length).toBeLessThan(DEFAULT_LIMITS.wsFrameBytes);
    expect(failure(text).error.code).toBe("payload_too_large");
    expect(failure(new ArrayBuffer(2 * 1024 * 1024)).error.code).toBe(
      "payload_too_large"
    );
  });

  it("rejects frames nested too deep or holding too long a string", () => {
    const deep = `${"[".repeat(40)}${"]".repeat(40)}`;
    const text = `{"type":"reset","id":"d","task":${deep}}`;
    expect(failure(text)).toMatchObject({
      id: "d",
      error: { code: "payload_too_large", details: { limit: "jsonDepth" } }
    });
    const long = JSON.stringify({ type: "ping", s: "x".repeat(300_000) });
    expect(failure(long).error.details).toMatchObject({ limit: "stringBytes" });
  });

  it("names an unknown type and keeps the id so the request can fail", () => {
    const parsed = failure('{"type":"teleport","id":"7"}');
    expect(parsed.id).toBe("7");
    expect(parsed.error.code).toBe("invalid_request");
    expect(parsed.error.message).toContain("teleport");
    expect(parsed.error.message).toContain("step");
  });

  it("rejects values that are not frame objects", () => {
    for (const text of ["null", "[]", "42", '"ping"', '{"id":"1"}']) {
      expect(failure(text).error.code).toBe("invalid_request");
    }
  });

  it("flattens invalid fields into details with dotted paths", () => {
    const parsed = failure(
      JSON.stringify({ type: "step", id: "9", action: { tool_calls: [{}] } })
    );
    expect(parsed.id).toBe("9");
    expect(parsed.error.code).toBe("invalid_request");
    expect(parsed.error.message).toContain("action.tool_calls.0.id");
    const { issues } = parsed.error.details as {
      issues: IssueDetail[];
    };
    expect(issues.map((i) => i.path)).toContain("action.tool_calls.0.id");
  });

  it("names the innermost field of a value that is not JSON", () => {
    const parsed = failure(
      '{"type":"reset","id":"r","task":{"a":[0,{"b":1e999}]}}'
    );
    expect(parsed.error.message).toContain("task.a.1.b");
  });

  it("rejects unknown fields, which are usually typos", () => {
    const parsed = failure('{"type":"resume","after":1,"afterr":2}');
    expect(parsed.error.code).toBe("invalid_request");
    expect(parsed.error.message).toContain("afterr");
  });

  it("answers a malformed tool name with invalid_name", () => {
    const parsed = failure('{"type":"call","id":"1","tool":"no spaces"}');
    expect(parsed.error.code).toBe("invalid_name");
  });

  it("never throws, whatever it is given", () => {
    const inputs = [
      "{",
      "\u0000",
      '{"type":{"nested":1}}',
      '{"type":"step","id":1}',
      '{"type":"reset","id":"x","task":1e999}',
      '{"__proto__":{"type":"ping"}}',
      `{"type":"reset","id":"x","task":${"[".repeat(9000)}${"]".repeat(9000)}}`,
      `{"type":"call","id":"x","tool":"t","arguments":${"[".repeat(5000)}`
    ];
    for (const text of inputs) {
      const parsed = parseClientFrame(text);
      expect(typeof parsed).toBe("object");
      expect(parsed.ok).toBe(false);
    }
  });
});

const events: EventFrame[] = [
  {
    type: "result",
    seq: 1,
    ...base,
    tool: "search",
    name: "papers",
    index: 0,
    objects: [{ title: "A", _REF_ID: "search_papers_1_0" }],
    metadata: { query: "a" },
    display: true,
    call_id: "call_1",
    part: { index: 0, count: 2 }
  },
  {
    type: "store.changed",
    seq: 2,
    ...base,
    op: "remove",
    tool: "search",
    name: "papers"
  },
  { type: "state.changed", seq: 3, ...base, key: "notes", value: ["a"] },
  {
    type: "message",
    seq: 4,
    ...base,
    index: 0,
    message: { role: "user", content: "hi" }
  },
  {
    type: "tool.started",
    seq: 5,
    ...base,
    call_id: "c",
    tool: "search",
    arguments: { q: "x" }
  },
  {
    type: "tool.finished",
    seq: 6,
    ...base,
    call_id: "c",
    tool: "search",
    is_error: false
  },
  {
    type: "update",
    seq: 7,
    ...base,
    kind: "status",
    payload: { text: "Searching" },
    call_id: "c"
  },
  {
    type: "step",
    seq: 8,
    ...base,
    step: 1,
    reward: 0.5,
    done: false,
    truncated: false
  },
  { type: "step.aborted", seq: 9, ...base, step: 2, first_seq: 8 },
  { type: "reset", seq: 10, at: AT, episode: 2 },
  { type: "forked", seq: 1, ...base, source: "abc", source_seq: 9 },
  {
    type: "model.call",
    seq: 12,
    ...base,
    call: 2,
    model: "m",
    status: 200,
    finish_reason: "stop",
    tokens: { prompt: 40, completion: 7 },
    break: true
  },
  {
    type: "tree.node",
    seq: 11,
    ...base,
    run_id: "r",
    payload: { pass: 1, node: "search.query" }
  },
  {
    type: "tree.decision",
    seq: 11,
    ...base,
    run_id: "r",
    payload: { tool: "search" }
  },
  { type: "tree.completed", seq: 12, ...base, payload: {} }
];

describe("frames", () => {
  it("round-trips an event frame of every type", () => {
    expect(events.map((e) => e.type).sort()).toEqual([...EVENT_TYPES()].sort());
    for (const frame of events) {
      const wire = JSON.parse(JSON.stringify(frame));
      expect(EventFrameSchema().parse(wire)).toEqual(frame);
      expect(ServerFrameSchema().parse(wire)).toEqual(frame);
    }
  });

  it("reads a model.call event's break as written now, false included, and as stored before, absent", () => {
    const call = events.find((e) => e.type === "model.call")!;
    expect(EventFrameSchema().parse({ ...call, break: false })).toMatchObject({
      break: false
    });
    const { break: _, ...earlier } = call as typeof call & { break?: boolean };
    expect(EventFrameSchema().parse(earlier)).not.toHaveProperty("break");
  });

  it("rejects event frames without a positive seq or an ISO time", () => {
    const [first] = events;
    expect(EventFrameSchema().safeParse({ ...first, seq: 0 }).success).toBe(
      false
    );
    expect(
      EventFrameSchema().safeParse({ ...first, at: "yesterday" }).success
    ).toBe(false);
  });

  it("round-trips every connection frame", () => {
    const error: ErrorBody = {
      code: "episode_not_running",
      message: "Reset first."
    };
    const frames: ServerFrame[] = [
      {
        type: "session.snapshot",
        status: {
          session_id: "s",
          environment: "counter",
          episode: 0,
          steps: 0,
          reward: 0,
          return: 0,
          done: false,
          truncated: false,
          status: "created",
          created_at: AT
        },
        state: { count: 0 },
        keys: [{ tool: "search", name: "papers", entries: 2, objects: 10 }],
        last_seq: 0,
        oldest_seq: 0
      },
      { type: "reply", id: "1", ok: true, value: { done: false } },
      { type: "reply", id: "2", ok: false, error },
      { type: "protocol.error", error, id: "3" },
      { type: "resume.expired", after: 3, oldest_seq: 90 },
      { type: "pong" }
    ];
    for (const frame of frames) {
      expect(
        ServerFrameSchema().parse(JSON.parse(JSON.stringify(frame)))
      ).toEqual(frame);
    }
    expect(
      ServerFrameSchema().safeParse({
        type: "reply",
        id: "1",
        ok: false,
        value: 1
      }).success
    ).toBe(false);
  });
});

describe("the handshake", () => {
  it("selects only a protocol the client offered", () => {
    expect(selectSubprotocol("roost.v1, roost.token.v1.k.x")).toBe("roost.v1");
    expect(selectSubprotocol("chat,roost.v1")).toBe("roost.v1");
    expect(selectSubprotocol("roost.token.v1.k.x")).toBe("roost.token.v1.k.x");
    expect(selectSubprotocol("chat")).toBeUndefined();
    expect(selectSubprotocol("")).toBeUndefined();
    expect(selectSubprotocol(null)).toBeUndefined();
  });

  it("answers a close with a code that may be sent", () => {
    for (const reserved of [1004, 1005, 1006, 1015, 2000, 999, 5000])
      expect(closeReplyCode(reserved)).toBe(1000);
    for (const code of [1000, 1001, 1008, 1011, 3000, 4000, 4999])
      expect(closeReplyCode(code)).toBe(code);
  });
});
