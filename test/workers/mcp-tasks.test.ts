// MCP's tasks on a session: a tools/call with `task` answers at once, the
// call runs in the session's object and survives that object's abort, and
// tasks/get, tasks/result, tasks/list and tasks/cancel follow it.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { calls, gate } from "../fixtures/environments";
import {
  createResetSession,
  json,
  send,
  type TestSession,
  withScope
} from "./helpers";
import { abort, events, inside, stubOf } from "./session-helpers";

interface Task {
  taskId: string;
  status: string;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

interface RpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

let ids = 0;
/** As a 2025-11-25 client sends it: the version it negotiated in a header. */
const rpc = async (s: TestSession, method: string, params?: object) => {
  const res = await s.call(
    "/mcp",
    send(
      "POST",
      { jsonrpc: "2.0", id: ++ids, method, ...(params ? { params } : {}) },
      {
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25"
      }
    )
  );
  expect(res.status, method).toBe(200);
  return json<RpcAnswer>(res);
};

const startTask = async (
  s: TestSession,
  name: string,
  args: object,
  task: object = {}
): Promise<Task> => {
  const answer = await rpc(s, "tools/call", { name, arguments: args, task });
  expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
  return (answer.result as { task: Task }).task;
};

const getTask = async (s: TestSession, taskId: string) =>
  (await rpc(s, "tasks/get", { taskId })).result as unknown as Task;

/** Polls tasks/get as a client does, until the task leaves `working` (bounded, no clock asserted). */
const pollUntilEnded = async (s: TestSession, taskId: string) => {
  for (let i = 0; i < 600; i++) {
    const task = await getTask(s, taskId);
    if (task.status !== "working") return task;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`task ${taskId} never ended`);
};

const lab = () => createResetSession({ environment: "lab" });

describe("MCP tasks", () => {
  it("declares tasks at initialize and lets every tool run as one", async () => {
    const s = await lab();
    const init = await rpc(s, "initialize", { protocolVersion: "2025-11-25" });
    expect(init.result).toMatchObject({
      protocolVersion: "2025-11-25",
      capabilities: {
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }
      }
    });
    const list = await rpc(s, "tools/list");
    const tools = (list.result as { tools: { execution?: object }[] }).tools;
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools)
      expect(tool.execution).toEqual({ taskSupport: "optional" });
  });

  it("survives the object's abort mid-call: polled to completion, the call takes effect once", async () => {
    const s = await lab();
    const stub = stubOf(s.session_id);
    const id = `task-abort-${crypto.randomUUID()}`;
    const task = await startTask(s, "wait", { gate: id }, { ttl: 60_000 });
    expect(task).toMatchObject({ status: "working", ttl: 60_000 });
    expect(new Date(task.createdAt).toISOString()).toBe(task.createdAt);
    expect(task.pollInterval).toBeGreaterThan(0);
    await inside(stub, () => gate(id).started);
    // Its first events are published while it waits, so the abort cuts a
    // call that was visibly under way.
    await inside(stub, () => new Promise((r) => setTimeout(r, 5)));
    await abort(stub);
    // Opened in the object's next instance, which the abort left to wake.
    await inside(stubOf(s.session_id), () => gate(id).open());
    const ended = await pollUntilEnded(s, task.taskId);
    expect(ended).toMatchObject({ taskId: task.taskId, status: "completed" });
    const result = await rpc(s, "tasks/result", { taskId: task.taskId });
    expect(result.result).toMatchObject({
      content: [{ type: "text", text: "opened" }],
      isError: false,
      _meta: {
        "io.modelcontextprotocol/related-task": { taskId: task.taskId }
      }
    });
    // Once in the session: one stored result, one finished call; the
    // aborted attempt's events were closed by step.aborted.
    const stored = await json<{ entries: unknown[] }>(
      await s.call("/environment?tool=wait&name=before_wait")
    );
    expect(stored.entries).toHaveLength(1);
    const log = await events(stubOf(s.session_id));
    expect(log.filter((e) => e.type === "tool.finished")).toHaveLength(1);
    expect(log.some((e) => e.type === "step.aborted")).toBe(true);
    const state = await json<{ state: { count: number } }>(
      await s.call("/state")
    );
    expect(state.state.count).toBe(1000);
  });

  it("has the alarm take up a call its object died during, with no client polling", async () => {
    const s = await lab();
    const id = `task-lease-${crypto.randomUUID()}`;
    const task = await startTask(s, "wait", { gate: id });
    await inside(stubOf(s.session_id), () => gate(id).started);
    await abort(stubOf(s.session_id));
    const next = stubOf(s.session_id);
    // The lease runs out: the next instance's clock is past it.
    await inside(next, (o) => {
      o.runtime.now = () => Date.now() + 60_000;
      gate(id).open();
    });
    expect(await runDurableObjectAlarm(next.raw)).toBe(true);
    const status = await inside(next, (_o, state) =>
      state.storage.sql
        .exec<{ status: string; redrives: number }>(
          "SELECT status, redrives FROM tasks WHERE task_id = ?",
          task.taskId
        )
        .one()
    );
    expect(status).toEqual({ status: "completed", redrives: 1 });
  });

  it("fails a call its object died during three times, instead of running it again", async () => {
    const s = await lab();
    const id = `task-doomed-${crypto.randomUUID()}`;
    const task = await startTask(s, "wait", { gate: id });
    await inside(stubOf(s.session_id), () => gate(id).started);
    const redrives = () =>
      inside(
        stubOf(s.session_id),
        (_o, state) =>
          state.storage.sql
            .exec<{ n: number }>(
              "SELECT redrives AS n FROM tasks WHERE task_id = ?",
              task.taskId
            )
            .one().n
      );
    for (let died = 1; died <= 3; died++) {
      await abort(stubOf(s.session_id));
      if (died === 3) break;
      // The client's next poll has the next instance take the call up
      // again (and count it).
      for (let i = 0; i < 600; i++) {
        expect((await getTask(s, task.taskId)).status).toBe("working");
        if ((await redrives()) >= died) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(await redrives()).toBe(died);
    }
    const ended = await pollUntilEnded(s, task.taskId);
    expect(ended.status).toBe("failed");
    expect(ended.statusMessage).toContain("3 times");
    const result = await rpc(s, "tasks/result", { taskId: task.taskId });
    expect(result.error).toMatchObject({ data: { code: "internal" } });
    await inside(stubOf(s.session_id), () => gate(id).open());
  });

  it("cancels: a waiting call never runs, a running one finishes but its task stays cancelled", async () => {
    const s = await lab();
    const id = `task-cancel-${crypto.randomUUID()}`;
    const key = `never-${crypto.randomUUID()}`;
    const running = await startTask(s, "wait", { gate: id });
    await inside(stubOf(s.session_id), () => gate(id).started);
    const waiting = await startTask(s, "bump", { key });
    const cancelled = await rpc(s, "tasks/cancel", { taskId: waiting.taskId });
    expect(cancelled.result).toMatchObject({
      taskId: waiting.taskId,
      status: "cancelled"
    });
    expect(
      (await rpc(s, "tasks/cancel", { taskId: running.taskId })).result
    ).toMatchObject({ status: "cancelled" });
    await inside(stubOf(s.session_id), () => gate(id).open());
    // A task started after both ends only once the queue passed them.
    const later = await startTask(s, "bump", {});
    const after = await rpc(s, "tasks/result", { taskId: later.taskId });
    expect(after.result).toMatchObject({ isError: false });
    expect(calls.get(key)).toBeUndefined();
    // The running call took effect; its task stayed cancelled.
    const state = await json<{ state: { count: number } }>(
      await s.call("/state")
    );
    expect(state.state.count).toBe(1001);
    for (const t of [running, waiting]) {
      expect(await getTask(s, t.taskId)).toMatchObject({
        status: "cancelled"
      });
      const result = await rpc(s, "tasks/result", { taskId: t.taskId });
      expect(result.error).toMatchObject({
        code: -32000,
        data: { code: "conflict" }
      });
      // Cancelling a task that ended is the request's fault.
      expect(
        (await rpc(s, "tasks/cancel", { taskId: t.taskId })).error?.code
      ).toBe(-32602);
    }
    expect(
      (await rpc(s, "tasks/cancel", { taskId: later.taskId })).error?.code
    ).toBe(-32602);
  });

  it("answers -32602 for unknown ids and bad params, and changes nothing", async () => {
    const s = await lab();
    const before = await rpc(s, "tasks/list");
    for (const [method, params] of [
      ["tasks/get", { taskId: "nope" }],
      ["tasks/result", { taskId: "nope" }],
      ["tasks/cancel", { taskId: "nope" }],
      ["tasks/get", {}],
      ["tasks/get", { taskId: 5 }],
      ["tasks/list", { cursor: "not-a-cursor" }],
      ["tools/call", { name: "missing", arguments: {}, task: {} }],
      ["tools/call", { name: "bump", arguments: {}, task: { ttl: -1 } }],
      ["tools/call", { name: "bump", arguments: {}, task: "soon" }]
    ] as const) {
      const answer = await rpc(s, method, params);
      expect(answer.error?.code, `${method} ${JSON.stringify(params)}`).toBe(
        -32602
      );
    }
    expect((await rpc(s, "tasks/list")).result).toEqual(before.result);
    expect((before.result as { tasks: unknown[] }).tasks).toEqual([]);
  });

  it("fails a task the session refuses, with the refusal as tasks/result's error; a tool's own error completes it", async () => {
    const big = await createResetSession({ environment: "bulk" });
    await inside(stubOf(big.session_id), (o) =>
      o.runtime.setLimits({ stagedBytesPerStep: 64 * 1024 })
    );
    const bad = await startTask(big, "fill", { results: 2, kb: 64 });
    const failed = await pollUntilEnded(big, bad.taskId);
    expect(failed.status).toBe("failed");
    expect(failed.statusMessage).toBeTruthy();
    const refusal = await rpc(big, "tasks/result", { taskId: bad.taskId });
    expect(refusal.error).toMatchObject({
      code: -32000,
      data: {
        code: "payload_too_large",
        details: { limit: "stagedBytesPerStep" }
      }
    });
    // Nothing of the refused call was kept.
    const stored = await json<{ entries: unknown[] }>(
      await big.call("/environment?tool=fill&name=fill")
    );
    expect(stored.entries ?? []).toEqual([]);
    const s = await lab();
    // Arguments the tool refuses are its own error: a result to read.
    const wrong = await startTask(s, "bump", { key: 5 });
    expect(
      (await rpc(s, "tasks/result", { taskId: wrong.taskId })).result
    ).toMatchObject({ isError: true });
    const thrown = await startTask(s, "faulty", { mode: "throw" });
    const result = await rpc(s, "tasks/result", { taskId: thrown.taskId });
    expect(result.result).toMatchObject({ isError: true });
    expect(await getTask(s, thrown.taskId)).toMatchObject({
      status: "completed",
      statusMessage: expect.stringContaining("error")
    });
  });

  it("lists tasks oldest first, and keeps each for its TTL (1 s to 24 h, 1 h by default)", async () => {
    const s = await lab();
    const stub = stubOf(s.session_id);
    // The object's clock stands still until moved: no task expires early.
    const t0 = Date.now();
    await inside(stub, (o) => {
      o.runtime.now = () => t0;
    });
    const short = await startTask(s, "bump", {}, { ttl: 10 });
    const plain = await startTask(s, "bump", {});
    const long = await startTask(s, "bump", {}, { ttl: 1e12 });
    expect([short.ttl, plain.ttl, long.ttl]).toEqual([
      1000, 3_600_000, 86_400_000
    ]);
    await rpc(s, "tasks/result", { taskId: long.taskId });
    const listed = (await rpc(s, "tasks/list")).result as {
      tasks: Task[];
      nextCursor?: string;
    };
    expect(listed.tasks.map((t) => [t.taskId, t.status])).toEqual([
      [short.taskId, "completed"],
      [plain.taskId, "completed"],
      [long.taskId, "completed"]
    ]);
    expect(listed.nextCursor).toBeUndefined();
    // Past the short one's TTL it reads as gone, and its timer deletes it.
    expect(Date.parse(short.createdAt)).toBe(t0);
    await inside(stub, (o) => {
      o.runtime.now = () => t0 + 1000;
    });
    expect((await rpc(s, "tasks/get", { taskId: short.taskId })).error).toEqual(
      expect.objectContaining({ code: -32602 })
    );
    expect(await runDurableObjectAlarm(stub.raw)).toBe(true);
    const kept = await inside(stub, (_o, state) =>
      state.storage.sql
        .exec<{ task_id: string }>("SELECT task_id FROM tasks")
        .toArray()
        .map((r) => r.task_id)
        .sort()
    );
    expect(kept).toEqual([plain.taskId, long.taskId].sort());
  });

  it("holds the scopes: an observe token reads and lists tasks but cannot start or cancel one", async () => {
    const s = await lab();
    const id = `task-scope-${crypto.randomUUID()}`;
    const task = await startTask(s, "wait", { gate: id });
    await inside(stubOf(s.session_id), () => gate(id).started);
    const viewer = await withScope(s, "observe");
    expect(await getTask(viewer, task.taskId)).toMatchObject({
      status: "working"
    });
    const listed = (await rpc(viewer, "tasks/list")).result as {
      tasks: Task[];
    };
    expect(listed.tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    for (const [method, params] of [
      ["tools/call", { name: "bump", arguments: {}, task: {} }],
      ["tasks/cancel", { taskId: task.taskId }]
    ] as const) {
      expect((await rpc(viewer, method, params)).error).toMatchObject({
        data: { code: "forbidden", details: { scope: "act" } }
      });
    }
    // An act token may.
    const agent = await withScope(s, "act");
    expect(
      (await rpc(agent, "tasks/cancel", { taskId: task.taskId })).result
    ).toMatchObject({ status: "cancelled" });
    await inside(stubOf(s.session_id), () => gate(id).open());
    expect(
      ((await rpc(viewer, "tasks/list")).result as { tasks: Task[] }).tasks
    ).toHaveLength(1);
  });
});
