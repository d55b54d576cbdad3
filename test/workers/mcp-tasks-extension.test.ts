// MCP's tasks in the stateless revision: the io.modelcontextprotocol/tasks
// extension. A client that declares it lets the server decide: a quick
// call answers as usual, a long one answers a task (resultType "task"),
// polled with tasks/get, whose answer carries the result once it ended.
// The frames are the extension's, as its official client sends them.
import { describe, expect, it } from "vitest";
import { gate } from "../fixtures/environments";
import {
  call,
  createResetSession,
  json,
  send,
  type TestSession
} from "./helpers";
import { abort, events, inside, stubOf } from "./session-helpers";

const VERSION = "2026-07-28";
const EXTENSION = "io.modelcontextprotocol/tasks";

interface Answer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

const meta = (tasks: boolean) => ({
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": tasks
    ? { extensions: { [EXTENSION]: {} } }
    : {}
});

let ids = 0;
const rpc = async (
  s: TestSession,
  method: string,
  params: Record<string, unknown> = {},
  tasks = true
): Promise<Answer> => {
  const named = (params.name ?? params.taskId) as string | undefined;
  const res = await s.call(
    "/mcp",
    send(
      "POST",
      {
        jsonrpc: "2.0",
        id: ++ids,
        method,
        params: { ...params, _meta: meta(tasks) }
      },
      {
        "Content-Type": "application/json",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
        ...(named === undefined ? {} : { "Mcp-Name": named })
      }
    )
  );
  expect(res.status, method).toBe(200);
  return json<Answer>(res);
};

const lab = () => createResetSession({ environment: "lab" });

describe("MCP tasks extension (2026-07-28)", () => {
  it("is declared at discover; tools carry no 2025-11-25 execution field", async () => {
    const s = await lab();
    const discovered = await rpc(s, "server/discover");
    expect(discovered.result).toMatchObject({
      capabilities: { extensions: { [EXTENSION]: {} } }
    });
    const listed = await rpc(s, "tools/list");
    for (const tool of (listed.result?.tools ?? []) as object[])
      expect(tool).not.toHaveProperty("execution");
  });

  it("answers a quick call at once, as without the extension", async () => {
    const s = await lab();
    const quick = await rpc(s, "tools/call", { name: "bump", arguments: {} });
    expect(quick.result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "count=1" }]
    });
  });

  it("answers a long call as a task that survives the object's abort and is polled to its result", async () => {
    const s = await lab();
    const id = `ext-abort-${crypto.randomUUID()}`;
    const started = await rpc(s, "tools/call", {
      name: "wait",
      arguments: { gate: id }
    });
    expect(started.result).toMatchObject({
      resultType: "task",
      status: "working",
      ttlMs: expect.any(Number),
      pollIntervalMs: expect.any(Number)
    });
    const taskId = String(started.result?.taskId);
    await inside(stubOf(s.session_id), () => gate(id).started);
    await abort(stubOf(s.session_id));
    await inside(stubOf(s.session_id), () => gate(id).open());
    let polled: Answer | undefined;
    for (let i = 0; i < 600; i++) {
      polled = await rpc(s, "tasks/get", { taskId });
      if (polled.result?.status !== "working") break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(polled?.result).toMatchObject({
      taskId,
      status: "completed",
      resultType: "complete",
      result: {
        resultType: "complete",
        isError: false,
        content: [{ type: "text", text: "opened" }]
      }
    });
    // Once in the session, though its first attempt died with the object.
    const log = await events(stubOf(s.session_id));
    expect(log.filter((e) => e.type === "tool.finished")).toHaveLength(1);

    // Nothing to update, and cancelling what ended is acknowledged.
    for (const method of ["tasks/update", "tasks/cancel"]) {
      const ack = await rpc(s, method, { taskId, inputResponses: {} });
      expect(ack.result).toEqual({
        resultType: "complete",
        _meta: expect.any(Object)
      });
    }
    const unknown = await rpc(s, "tasks/get", { taskId: "nope" });
    expect(unknown.error?.code).toBe(-32602);
    // tasks/result and tasks/list are 2025-11-25's.
    const res = await s.call(
      "/mcp",
      send(
        "POST",
        {
          jsonrpc: "2.0",
          id: 1,
          method: "tasks/list",
          params: { _meta: meta(true) }
        },
        {
          "Content-Type": "application/json",
          "MCP-Protocol-Version": VERSION,
          "Mcp-Method": "tasks/list"
        }
      )
    );
    expect(res.status).toBe(404);
  });

  it("cancels a running task: it ends cancelled, with no result", async () => {
    const s = await lab();
    const id = `ext-cancel-${crypto.randomUUID()}`;
    const started = await rpc(s, "tools/call", {
      name: "wait",
      arguments: { gate: id }
    });
    const taskId = String(started.result?.taskId);
    const ack = await rpc(s, "tasks/cancel", { taskId });
    expect(ack.result?.resultType).toBe("complete");
    await inside(stubOf(s.session_id), () => gate(id).open());
    const got = await rpc(s, "tasks/get", { taskId });
    expect(got.result).toMatchObject({ status: "cancelled" });
    expect(got.result).not.toHaveProperty("result");
  });

  it("on an environment's endpoint, polls a task by its id alone, which opens that task and nothing else", async () => {
    const onEnvironment = async (
      method: string,
      params: Record<string, unknown>
    ): Promise<Answer> => {
      const named = (params.name ?? params.taskId) as string | undefined;
      const res = await call(
        "/v1/environments/lab/mcp",
        send(
          "POST",
          {
            jsonrpc: "2.0",
            id: ++ids,
            method,
            params: { ...params, _meta: meta(true) }
          },
          {
            "Content-Type": "application/json",
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": method,
            ...(named === undefined ? {} : { "Mcp-Name": named })
          }
        )
      );
      expect(res.status, method).toBe(200);
      return json<Answer>(res);
    };
    const id = `ext-env-${crypto.randomUUID()}`;
    const started = await onEnvironment("tools/call", {
      name: "wait",
      arguments: { gate: id }
    });
    expect(started.result).toMatchObject({ resultType: "task" });
    const taskId = String(started.result?.taskId);
    const resultMeta = started.result?._meta as
      | Record<string, unknown>
      | undefined;
    const credential = String(resultMeta?.["dev.roost/session"]);
    const [sessionId, token] = [
      credential.slice(0, credential.indexOf(".")),
      credential.slice(credential.indexOf(".") + 1)
    ];
    // The id names the session but holds none of its token.
    expect(taskId.startsWith(`${sessionId}~`)).toBe(true);
    expect(taskId).not.toContain(token);
    await inside(stubOf(sessionId), () => gate(id).open());
    let polled: Answer | undefined;
    for (let i = 0; i < 600; i++) {
      polled = await onEnvironment("tasks/get", { taskId });
      if (polled.result?.status !== "working") break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(polled?.result).toMatchObject({
      taskId,
      status: "completed",
      result: { content: [{ type: "text", text: "opened" }] }
    });
    // Revoking the session's act tokens revokes the ids issued before it.
    const revoked = await call(
      `/v1/sessions/${sessionId}/tokens/revoke`,
      send(
        "POST",
        { scope: "act" },
        { "Content-Type": "application/json", Authorization: `Bearer ${token}` }
      )
    );
    expect(revoked.status).toBe(200);
    const afterRevoke = await call(
      "/v1/environments/lab/mcp",
      send(
        "POST",
        {
          jsonrpc: "2.0",
          id: ++ids,
          method: "tasks/get",
          params: { taskId, _meta: meta(true) }
        },
        {
          "Content-Type": "application/json",
          "MCP-Protocol-Version": VERSION,
          "Mcp-Method": "tasks/get",
          "Mcp-Name": taskId
        }
      )
    );
    expect(afterRevoke.status).toBe(401);
    // Altered, or moved to another task of the session, it opens nothing.
    const parts = taskId.split("~");
    for (const forged of [
      `${taskId.slice(0, -2)}xx`,
      [parts[0], "0000000000a-other", ...parts.slice(2)].join("~"),
      `${sessionId}~${parts[1]}`
    ]) {
      const refused = await onEnvironment("tasks/get", { taskId: forged });
      expect(refused.error?.code, forged).toBe(-32602);
    }
  });
});
