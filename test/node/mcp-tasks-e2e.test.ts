import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  type McpError
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, inject, it } from "vitest";

// MCP's tasks with the official client against wrangler dev: a tool call
// as a task, streamed to its result by the SDK's own polling, on both MCP
// endpoints, and across the death of the session's object.
const base = inject("baseUrl");

const post = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {})
    },
    body: JSON.stringify(body)
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
};

const connect = async (url: string, headers: Record<string, string> = {}) => {
  const client = new Client({ name: "roost-e2e-tasks", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers }
  });
  await client.connect(transport);
  return { client, transport };
};

/** Every message of the SDK's task stream, until its result or error. */
const streamed = async (
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onCreated: () => Promise<void> = async () => {}
) => {
  const kinds: string[] = [];
  let taskId = "";
  let result: Record<string, unknown> | undefined;
  let error: unknown;
  for await (const message of client.experimental.tasks.callToolStream(
    { name, arguments: args },
    undefined,
    { task: { ttl: 600_000 } }
  )) {
    kinds.push(message.type);
    if (message.type === "taskCreated") {
      taskId = message.task.taskId;
      expect(message.task).toMatchObject({ status: "working", ttl: 600_000 });
      await onCreated();
    }
    if (message.type === "result")
      result = message.result as Record<string, unknown>;
    if (message.type === "error") error = message.error;
  }
  return { kinds, taskId, result, error };
};

describe("MCP tasks with the official client", () => {
  it("runs a task-augmented call to its result on a session's endpoint, and gets, lists and refuses to cancel it once ended", async () => {
    const created = await post("/v1/sessions", { environment: "counter" });
    const id = String(created.session_id);
    const token = String(created.token);
    await post(`/v1/sessions/${id}/reset`, {}, token);
    const { client, transport } = await connect(
      `${base}/v1/sessions/${id}/mcp`,
      { Authorization: `Bearer ${token}` }
    );
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(client.getServerCapabilities()?.tasks).toMatchObject({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } }
    });
    const { tools } = await client.listTools();
    expect(tools[0]?.execution).toEqual({ taskSupport: "optional" });
    const run = await streamed(client, "incr", {});
    expect(run.error).toBeUndefined();
    expect(run.kinds[0]).toBe("taskCreated");
    expect(run.kinds.at(-1)).toBe("result");
    expect(run.result).toMatchObject({
      content: [{ type: "text", text: "counter=1" }],
      isError: false,
      _meta: { "io.modelcontextprotocol/related-task": { taskId: run.taskId } }
    });
    const tasks = client.experimental.tasks;
    expect(await tasks.getTask(run.taskId)).toMatchObject({
      taskId: run.taskId,
      status: "completed"
    });
    const listed = await tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toEqual([run.taskId]);
    const again = await tasks.getTaskResult(run.taskId, CallToolResultSchema);
    expect(again).toMatchObject({ isError: false });
    const refused = await tasks.cancelTask(run.taskId).catch((e) => e);
    expect((refused as McpError).code).toBe(-32602);
    const unknown = await tasks.getTask("no-such-task").catch((e) => e);
    expect((unknown as McpError).code).toBe(-32602);
    // The call took effect once, as a plain call would have.
    const state = (await (
      await fetch(`${base}/v1/sessions/${id}/state`, {
        headers: { authorization: `Bearer ${token}` }
      })
    ).json()) as { state: { count: number } };
    expect(state.state.count).toBe(1);
    await client.close();
  });

  it("finishes a task on an environment's endpoint though the session's object dies mid-call", async () => {
    const { client, transport } = await connect(
      `${base}/v1/environments/nap/mcp`
    );
    const [sessionId = ""] = String(transport.sessionId).split(".");
    await client.listTools();
    // Killed as soon as the task answered, while its call sleeps.
    const run = await streamed(client, "nap", { ms: 1500 }, async () => {
      const res = await fetch(`${base}/__e2e/sessions/${sessionId}/abort`, {
        method: "POST"
      });
      expect(res.status).toBe(204);
    });
    expect(run.error).toBeUndefined();
    expect(run.kinds.at(-1)).toBe("result");
    // Run again by the object's next instance, and counted once.
    expect(run.result).toMatchObject({
      content: [{ type: "text", text: "naps=1" }],
      isError: false
    });
    const second = await streamed(client, "nap", { ms: 0 });
    expect(second.result).toMatchObject({
      content: [{ type: "text", text: "naps=2" }]
    });
    await transport.terminateSession();
    await client.close();
  });
});
