// Aviary's reset returns the tools of the episode: the toolbox fixture's
// reset offers the tools its task names, and every transport sees only
// those until the next reset chooses again.
import { describe, expect, it } from "vitest";
import type {
  ForkResponse,
  ResetResponse,
  RunStatus
} from "../../src/protocol";
import { calls, toolboxOffers } from "../fixtures/environments";
import { createSignal } from "../shared/signal";
import {
  call,
  createSession,
  errorOf,
  json,
  send,
  step,
  type TestSession
} from "./helpers";
import { abort, stubOf } from "./session-helpers";
import { openSocket } from "./ws-helpers";

const names = (tools: { function: { name: string } }[]) =>
  tools.map((t) => t.function.name);

const toolbox = async (tools?: string[]) =>
  createSession({
    environment: "toolbox",
    ...(tools === undefined ? {} : { task: { tools } })
  });

const reset = async (s: TestSession, body: object = {}) => {
  const res = await s.call("/reset", send("POST", body));
  expect(res.status).toBe(200);
  return json<ResetResponse>(res);
};

const runs = (tool: string) => calls.get(`toolbox.${tool}`) ?? 0;

const mcpTools = async (s: TestSession): Promise<string[]> => {
  const res = await s.call(
    "/mcp",
    send("POST", { jsonrpc: "2.0", id: 1, method: "tools/list" })
  );
  const body = await json<{ result: { tools: { name: string }[] } }>(res);
  return body.result.tools.map((t) => t.name);
};

describe("tools per reset", () => {
  it("offers every tool when reset chooses none", async () => {
    const s = await toolbox();
    const out = await reset(s);
    expect(names(out.tools)).toEqual(["saw", "drill", "hammer"]);
    expect(await mcpTools(s)).toEqual(["saw", "drill", "hammer"]);
  });

  it("lists only the chosen tools, in the environment's order, on every transport", async () => {
    const s = await toolbox(["hammer", "saw", "hammer"]);
    const out = await reset(s);
    expect(out.observations).toEqual([
      { role: "user", content: "Tools: hammer, saw, hammer." }
    ]);
    expect(names(out.tools)).toEqual(["saw", "hammer"]);
    expect(await mcpTools(s)).toEqual(["saw", "hammer"]);
    const frame = await json<{ info: { tool_names: string[] } }>(
      await s.call("/frame")
    );
    expect(frame.info.tool_names).toEqual(["saw", "hammer"]);

    const sock = await openSocket(s.session_id, s.token);
    sock.send({ type: "reset", id: "r1", task: { tools: ["drill"] } });
    const frames = await sock.until((f) =>
      f.some((x) => x.type === "reply" && x.id === "r1")
    );
    const reply = frames.find((x) => x.id === "r1") as unknown as {
      ok: boolean;
      value: ResetResponse;
    };
    expect(reply.ok).toBe(true);
    expect(names(reply.value.tools)).toEqual(["drill"]);
    sock.ws.close();
    expect(await mcpTools(s)).toEqual(["drill"]);
  });

  it("answers a step's call to a tool left out as an invalid tool call, and runs nothing", async () => {
    const s = await toolbox(["saw"]);
    await reset(s);
    const before = runs("drill");
    const out = await step(s, "drill");
    expect(out.observations).toEqual([
      expect.objectContaining({
        role: "tool",
        name: "drill",
        content: "Invalid tool call: drill is not a tool. Tools: saw.",
        is_error: true
      })
    ]);
    expect(out.done).toBe(false);
    expect(runs("drill")).toBe(before);
    // The chosen tool still runs.
    const saw = await step(s, "saw");
    expect(saw.observations[0]).toMatchObject({ content: "used the saw" });
  });

  it("refuses a direct call to a tool left out with 404, over HTTP and MCP", async () => {
    const s = await toolbox(["saw"]);
    await reset(s);
    const before = runs("hammer");
    const res = await s.call("/tools/hammer", send("POST", { arguments: {} }));
    expect(res.status).toBe(404);
    const error = await errorOf(res);
    expect(error.message).toContain("not offered in this episode");
    expect(error.details).toMatchObject({
      tool: "hammer",
      episode_tools: ["saw"]
    });
    const mcp = await s.call(
      "/mcp",
      send("POST", {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "hammer", arguments: {} }
      })
    );
    expect(await json(mcp)).toMatchObject({
      error: { code: -32602, message: "Unknown tool: hammer" }
    });
    expect(runs("hammer")).toBe(before);
    const ok = await s.call("/tools/saw", send("POST", { arguments: {} }));
    expect(ok.status).toBe(200);
  });

  it("chooses again at every reset", async () => {
    const s = await toolbox(["saw"]);
    expect(names((await reset(s)).tools)).toEqual(["saw"]);
    expect(
      names((await reset(s, { task: { tools: ["drill", "hammer"] } })).tools)
    ).toEqual(["drill", "hammer"]);
    expect((await step(s, "saw")).observations[0]).toMatchObject({
      content: "Invalid tool call: saw is not a tool. Tools: drill, hammer."
    });
    expect(names((await reset(s, { task: {} })).tools)).toEqual([
      "saw",
      "drill",
      "hammer"
    ]);
    expect((await step(s, "saw")).observations[0]).toMatchObject({
      content: "used the saw"
    });
  });

  it("offers no tool when reset chooses an empty list", async () => {
    const s = await toolbox([]);
    expect((await reset(s)).tools).toEqual([]);
    expect((await step(s, "saw")).observations[0]).toMatchObject({
      content: "Invalid tool call: saw is not a tool. Tools: none.",
      is_error: true
    });
  });

  it("refuses a reset that chooses an unknown tool, naming it, and changes nothing", async () => {
    const s = await toolbox(["saw"]);
    await reset(s);
    const status = await json(await s.call(""));
    const res = await s.call(
      "/reset",
      send("POST", { task: { tools: ["saw", "chisel"] } })
    );
    expect(res.status).toBe(500);
    const error = await errorOf(res);
    expect(error.code).toBe("internal");
    expect(error.message).toContain('"chisel"');
    expect(error.message).toContain("saw, drill, hammer");
    expect(await json(await s.call(""))).toMatchObject({
      episode: (status as { episode: number }).episode
    });
    expect(await mcpTools(s)).toEqual(["saw"]);
  });

  it("keeps the episode's tools when the object is aborted", async () => {
    const s = await toolbox(["drill"]);
    await reset(s);
    const stub = stubOf(s.session_id);
    await abort(stub);
    expect(await mcpTools(s)).toEqual(["drill"]);
    expect((await step(s, "saw")).observations[0]).toMatchObject({
      content: "Invalid tool call: saw is not a tool. Tools: drill."
    });
    expect((await step(s, "drill")).observations[0]).toMatchObject({
      content: "used the drill"
    });
  });

  it("is copied by fork", async () => {
    const s = await toolbox(["hammer"]);
    await reset(s);
    const res = await s.call("/fork", send("POST", { count: 1 }));
    expect(res.status).toBe(201);
    const [copy] = (await json<ForkResponse>(res)).sessions;
    const fork: TestSession = {
      ...copy!,
      environment: "toolbox",
      call: (path, init = {}) =>
        call(`/v1/sessions/${copy!.session_id}${path}`, {
          ...init,
          headers: {
            Authorization: `Bearer ${copy!.token}`,
            "Content-Type": "application/json",
            ...init.headers
          }
        })
    };
    expect(await mcpTools(fork)).toEqual(["hammer"]);
    expect((await step(fork, "saw")).observations[0]).toMatchObject({
      content: "Invalid tool call: saw is not a tool. Tools: hammer."
    });
  });

  it("are what Aviary's /reset answers", async () => {
    const start = await call(
      "/v1/environments/toolbox/aviary/start",
      send("POST", { task_kwargs: { tools: ["drill"] } })
    );
    const { env_id } = await json<{ env_id: string }>(start);
    const res = await call(
      "/v1/environments/toolbox/aviary/reset",
      send("POST", { env_id })
    );
    expect(res.status).toBe(200);
    const [, tools] =
      await json<[unknown, { function: { name: string } }[]]>(res);
    expect(names(tools)).toEqual(["drill"]);
  });

  it("are the only tools a decision tree offers", async () => {
    const s = await toolbox(["drill", "hammer"]);
    await reset(s);
    const prompt = `tree ${crypto.randomUUID()}`;
    const started = await s.call("/runs", send("POST", { prompt }));
    expect(started.status).toBe(202);
    const { run_id } = await json<{ run_id: string }>(started);
    const run = await json<RunStatus>(await s.call(`/runs/${run_id}?wait=20`));
    expect(run.state).toBe("completed");
    expect(toolboxOffers.get(prompt)?.[0]).toEqual([
      "drill",
      "shed(hammer,drill)",
      "text_response"
    ]);
    expect(toolboxOffers.get(prompt)?.flat()).not.toContain("saw");
  });

  it("leave out a branch with nothing offered below it, and keep one that has", async () => {
    const treeRun = async (tools: string[]) => {
      const s = await toolbox(tools);
      await reset(s);
      const prompt = `tree ${crypto.randomUUID()}`;
      const started = await s.call("/runs", send("POST", { prompt }));
      const { run_id } = await json<{ run_id: string }>(started);
      const run = await json<RunStatus>(
        await s.call(`/runs/${run_id}?wait=20`)
      );
      return { run, offers: toolboxOffers.get(prompt) };
    };
    // Without the hammer the shed would be an empty node: not offered.
    const sawOnly = await treeRun(["saw"]);
    expect(sawOnly.offers).toEqual([["saw", "text_response"]]);
    expect(sawOnly.run.final_text).toBe("used the saw");
    // With it the shed is offered, leading to the hammer alone (the drill
    // left out); its one option needs no model call.
    const hammer = await treeRun(["hammer"]);
    expect(hammer.offers).toEqual([["shed(hammer)", "text_response"]]);
    expect(hammer.run.final_text).toBe("used the hammer");
  });

  it("are what OpenEnv's list_tools lists", async () => {
    const res = await call("/v1/environments/toolbox/openenv/ws", {
      headers: { Upgrade: "websocket" }
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const signal = createSignal();
    const frames: { type: string; data: Record<string, unknown> }[] = [];
    ws.addEventListener("message", (e) => {
      frames.push(JSON.parse(e.data as string));
      signal.notify();
    });
    ws.send(
      JSON.stringify({ type: "reset", data: { task: { tools: ["hammer"] } } })
    );
    await signal.until(() => frames.length >= 1, { what: "the reset" });
    ws.send(JSON.stringify({ type: "step", data: { type: "list_tools" } }));
    await signal.until(() => frames.length >= 2, { what: "list_tools" });
    expect(frames[1]).toMatchObject({
      type: "observation",
      data: { observation: { tools: [{ name: "hammer" }] } }
    });
    expect(
      (frames[1]!.data.observation as { tools: unknown[] }).tools
    ).toHaveLength(1);
    ws.close();
  });
});
