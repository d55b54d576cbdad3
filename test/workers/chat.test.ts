import { describe, expect, it, vi } from "vitest";
import type { RunStatus } from "../../src/protocol";
import { flags } from "../fixtures/environments";
import {
  call,
  createResetSession,
  errorOf,
  json,
  send,
  type TestSession
} from "./helpers";
import { abort, stubOf } from "./session-helpers";

type Chunk = { type: string } & Record<string, unknown>;

/** The body useChat's DefaultChatTransport sends for one user message. */
const chatBody = (prompt: string, chatId = "chat-1", extra = {}) => ({
  id: chatId,
  messages: [
    {
      id: "u1",
      role: "user",
      parts: [{ type: "text", text: prompt }]
    }
  ],
  trigger: "submit-message",
  ...extra
});

/** Every SSE event of a body, `[DONE]` included, in order. */
const sseEvents = async (response: Response): Promise<string[]> => {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => block.slice("data: ".length));
};

const chunksOf = async (response: Response): Promise<Chunk[]> => {
  const events = await sseEvents(response);
  expect(events.at(-1)).toBe("[DONE]");
  return events.slice(0, -1).map((e) => JSON.parse(e) as Chunk);
};

const chat = (s: TestSession, prompt: string, chatId?: string, extra = {}) =>
  s.call("/chat", send("POST", chatBody(prompt, chatId, extra)));

const started = (id: string) =>
  vi.waitFor(
    () => {
      if (!flags.started.has(id)) throw new Error(`gate ${id} not reached`);
    },
    { timeout: 15_000, interval: 10 }
  );

const types = (chunks: Chunk[]) => chunks.map((c) => c.type);

describe("POST /v1/sessions/:id/chat", () => {
  it("streams a run as UI message chunks: steps, text, tools, Results, decisions, finish", async () => {
    const s = await createResetSession({ environment: "forest" });
    const res = await chat(s, "multi");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const chunks = await chunksOf(res);
    const runId = chunks[0]!.messageId as string;
    expect(chunks[0]).toEqual({
      type: "start",
      messageId: runId,
      messageMetadata: { run_id: runId }
    });
    const probe = `${runId}_1_3_probe`;
    const finish = `${runId}_2_5_finish`;
    expect(chunks.slice(1)).toEqual([
      { type: "start-step" },
      {
        type: "data-decision",
        id: expect.stringMatching(/^decision-/),
        data: {
          pass: 1,
          node: "root",
          option: "grove",
          kind: "branch",
          inputs: {},
          end: false,
          impossible: false,
          message: "Into the grove."
        }
      },
      {
        type: "data-tree",
        id: "tree",
        data: { run_id: runId, state: "running", node: "grove", pass: 1 }
      },
      { type: "text-start", id: expect.any(String) },
      { type: "text-delta", id: expect.any(String), delta: "Into the grove." },
      { type: "text-end", id: expect.any(String) },
      expect.objectContaining({ type: "data-decision" }),
      {
        type: "data-tree",
        id: "tree",
        data: { run_id: runId, state: "running", node: "grove", pass: 1 }
      },
      { type: "text-start", id: expect.any(String) },
      { type: "text-delta", id: expect.any(String), delta: "Probing." },
      { type: "text-end", id: expect.any(String) },
      {
        type: "tool-input-start",
        toolCallId: probe,
        toolName: "probe",
        dynamic: true,
        providerExecuted: true
      },
      {
        type: "tool-input-available",
        toolCallId: probe,
        toolName: "probe",
        input: { depth: 2 },
        dynamic: true,
        providerExecuted: true
      },
      { type: "text-start", id: expect.any(String) },
      {
        type: "text-delta",
        id: expect.any(String),
        delta: "Found a probe at depth 2."
      },
      { type: "text-end", id: expect.any(String) },
      {
        type: "data-result",
        id: "result-probe/probes/0",
        data: {
          call_id: probe,
          tool: "probe",
          name: "probes",
          index: 0,
          objects: [{ _REF_ID: "probe_probes_1_0", depth: 2 }],
          metadata: {},
          display: true
        }
      },
      {
        type: "tool-output-available",
        toolCallId: probe,
        output: "probed at 2",
        dynamic: true,
        providerExecuted: true
      },
      { type: "finish-step" },
      { type: "start-step" },
      expect.objectContaining({ type: "data-decision" }),
      {
        type: "data-tree",
        id: "tree",
        data: { run_id: runId, state: "running", node: "root", pass: 2 }
      },
      { type: "text-start", id: expect.any(String) },
      { type: "text-delta", id: expect.any(String), delta: "Finishing." },
      { type: "text-end", id: expect.any(String) },
      expect.objectContaining({ type: "tool-input-start", toolCallId: finish }),
      expect.objectContaining({
        type: "tool-input-available",
        toolCallId: finish
      }),
      expect.objectContaining({
        type: "tool-output-available",
        toolCallId: finish,
        output: "finished"
      }),
      // The end tool's message is the run's answer.
      { type: "text-start", id: expect.any(String) },
      { type: "text-delta", id: expect.any(String), delta: "finished" },
      { type: "text-end", id: expect.any(String) },
      { type: "finish-step" },
      {
        type: "data-tree",
        id: "tree",
        data: {
          run_id: runId,
          state: "completed",
          node: "root",
          outcome: "ended"
        }
      },
      {
        type: "finish",
        finishReason: "stop",
        messageMetadata: {
          run_id: runId,
          state: "completed",
          outcome: "ended",
          passes: 2
        }
      }
    ]);
    // Text part ids are unique, so no part overwrites another.
    const ids = chunks.filter((c) => c.type === "text-start").map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    // It is a run like any: readable, with the prompt from the user message.
    const run = await json<RunStatus>(await s.call(`/runs/${runId}`));
    expect(run).toMatchObject({ state: "completed", prompt: "multi" });
  });

  it("streams a tool's error result, self-healing progress as transient data, and a text answer", async () => {
    const s = await createResetSession({ environment: "forest" });
    const chunks = await chunksOf(await chat(s, "heal"));
    const errored = chunks.find((c) => c.type === "tool-output-error");
    expect(errored).toMatchObject({
      errorText: "Try again: the first call always fails.",
      dynamic: true
    });
    expect(chunks.find((c) => c.type === "data-update")).toMatchObject({
      transient: true,
      data: { kind: "self_healing_error", call_id: errored!.toolCallId }
    });
    expect(types(chunks).filter((t) => t === "start-step")).toHaveLength(3);
    expect(chunks.filter((c) => c.type === "text-delta").at(-1)).toMatchObject({
      delta: "healed after 0 open errors"
    });
    expect(chunks.at(-1)).toMatchObject({
      type: "finish",
      messageMetadata: { outcome: "answered", passes: 3 }
    });
  });

  it("opens a pass's step with a runIf tool that runs before any decision", async () => {
    const s = await createResetSession({ environment: "forest" });
    const chunks = await chunksOf(await chat(s, "auto"));
    expect(types(chunks)).toEqual([
      "start",
      "start-step",
      "tool-input-start",
      "tool-input-available",
      "tool-output-available",
      "data-decision",
      "data-tree",
      "text-start",
      "text-delta",
      "text-end",
      "finish-step",
      "data-tree",
      "finish"
    ]);
    expect(chunks[4]).toMatchObject({ output: "auto ran" });
    expect(chunks[8]).toMatchObject({ delta: "auto ran 1 time(s)" });
  });

  it("ends a cancelled run's stream with finish, reason other", async () => {
    const s = await createResetSession({ environment: "forest" });
    const gate = `chat-cancel-${crypto.randomUUID()}`;
    const res = await chat(s, `gate:${gate}`, "cancelled");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
    const runId = (JSON.parse(text.split("\n\n")[0]!.slice(6)) as Chunk)
      .messageId as string;
    await started(gate);
    const cancel = await s.call(`/runs/${runId}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(200);
    flags.open.add(gate);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const chunks = text
      .split("\n\n")
      .filter((b) => b.startsWith("data: ") && b !== "data: [DONE]")
      .map((b) => JSON.parse(b.slice(6)) as Chunk);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(chunks.slice(-3)).toEqual([
      { type: "finish-step" },
      {
        type: "data-tree",
        id: "tree",
        data: { run_id: runId, state: "cancelled", node: "grove" }
      },
      {
        type: "finish",
        finishReason: "other",
        messageMetadata: { run_id: runId, state: "cancelled" }
      }
    ]);
  });

  it("ends a failed run's stream with an error chunk", async () => {
    const s = await createResetSession({ environment: "forest" });
    const chunks = await chunksOf(await chat(s, "broken"));
    expect(types(chunks)).toEqual(["start", "data-tree", "error", "finish"]);
    expect(chunks[2]).toEqual({
      type: "error",
      errorText: "The decision model failed: the model is down"
    });
    expect(chunks[3]).toMatchObject({
      finishReason: "error",
      messageMetadata: { state: "failed" }
    });
  });

  it("streams live while the run is going, and a reconnect replays it from the start", async () => {
    const s = await createResetSession({ environment: "forest" });
    const gate = `chat-${crypto.randomUUID()}`;
    const res = await chat(s, `gate:${gate}`, "live-chat");
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    // The wait tool's call streams before the tool returns.
    while (!seen.includes('"tool-input-available"')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      seen += value;
    }
    await started(gate);
    // Another chat id, or none going: nothing to resume.
    expect((await s.call("/chat/other-chat/stream")).status).toBe(204);
    const again = await s.call("/chat/live-chat/stream");
    expect(again.status).toBe(200);
    expect(again.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    flags.open.add(gate);
    const replayed = await chunksOf(again);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    const live = seen
      .split("\n\n")
      .filter((b) => b.startsWith("data: "))
      .map((b) => b.slice(6));
    expect(live.at(-1)).toBe("[DONE]");
    // The replay says exactly what the live stream said.
    expect(replayed).toEqual(live.slice(0, -1).map((e) => JSON.parse(e)));
    expect(
      replayed.filter((c) => c.type === "text-delta").at(-1)
    ).toMatchObject({ delta: `opened ${gate}` });
    // Once the run ended there is nothing to resume.
    expect((await s.call("/chat/live-chat/stream")).status).toBe(204);
  });

  it("survives the object being aborted mid-run: a reconnect takes back the lost pass and streams the rest", async () => {
    const s = await createResetSession({ environment: "forest" });
    const gate = `chat-abort-${crypto.randomUUID()}`;
    const res = await chat(s, `gate:${gate}`, "evicted");
    const stub = stubOf(s.session_id);
    await started(gate);
    await abort(stub);
    // The cut stream ends; a reconnecting client replaces what it said.
    await res.text().catch(() => "");
    const again = await s.call("/chat/evicted/stream");
    expect(again.status).toBe(200);
    flags.open.add(gate);
    const chunks = await chunksOf(again);
    const after = chunks.slice(
      chunks.findIndex((c) => c.type === "reset-step")
    );
    expect(after[0]).toEqual({ type: "reset-step" });
    // The aborted pass's call is taken back; its retry is announced once.
    expect(
      after
        .filter((c) => c.type === "tool-input-available")
        .map((c) => c.toolName)
    ).toEqual(["wait"]);
    expect(chunks.at(-1)).toMatchObject({
      type: "finish",
      messageMetadata: { state: "completed", outcome: "answered" }
    });
  });

  it("answers 4xx JSON errors useChat shows: no text, no tree, a run going, bad bodies", async () => {
    const s = await createResetSession({ environment: "forest" });
    const noText = await s.call(
      "/chat",
      send("POST", {
        id: "c",
        messages: [
          { id: "u", role: "user", parts: [{ type: "file", url: "x" }] }
        ]
      })
    );
    expect(noText.status).toBe(400);
    expect((await errorOf(noText)).message).toMatch(/no text/);
    const onlyAssistant = await s.call(
      "/chat",
      send("POST", {
        id: "c",
        messages: [
          {
            id: "a",
            role: "assistant",
            parts: [{ type: "text", text: "hi" }]
          }
        ]
      })
    );
    expect(onlyAssistant.status).toBe(400);
    expect((await s.call("/chat", send("POST", { id: "c" }))).status).toBe(400);
    const unknownModel = await chat(s, "multi", "c", { model: "gpt-nothing" });
    expect(unknownModel.status).toBe(400);

    const counter = await createResetSession({ environment: "counter" });
    const noTree = await chat(counter, "hi");
    expect(noTree.status).toBe(400);
    expect((await errorOf(noTree)).message).toMatch(/no decision tree/);

    const gate = `chat-409-${crypto.randomUUID()}`;
    const first = await chat(s, `gate:${gate}`, "busy");
    await started(gate);
    const second = await chat(s, "multi", "busy");
    expect(second.status).toBe(409);
    expect((await errorOf(second)).code).toBe("conflict");
    flags.open.add(gate);
    await first.text();

    const noToken = await call(
      `/v1/sessions/${s.session_id}/chat`,
      send("POST", chatBody("multi"))
    );
    expect(noToken.status).toBe(401);
    const noTokenResume = await call(
      `/v1/sessions/${s.session_id}/chat/c/stream`
    );
    expect(noTokenResume.status).toBe(401);
  });

  it("lets a browser on an allowed origin POST with a token and read the stream", async () => {
    const s = await createResetSession({ environment: "forest" });
    const preflight = await call(`/v1/sessions/${s.session_id}/chat`, {
      method: "OPTIONS",
      headers: {
        Origin: "http://localhost:5173",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type"
      }
    });
    expect(preflight.status).toBe(204);
    expect(
      preflight.headers.get("Access-Control-Allow-Headers")?.toLowerCase()
    ).toContain("authorization");
    const res = await s.call(
      "/chat",
      send("POST", chatBody("multi"), {
        "Content-Type": "application/json",
        Origin: "http://localhost:5173"
      })
    );
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(
      "http://localhost:5173"
    );
    expect((await chunksOf(res)).at(-1)?.type).toBe("finish");
  });
});
