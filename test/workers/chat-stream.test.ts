// POST /v1/sessions/:id/chat streams a decision-tree run as the AI SDK's
// UI message chunks: steps, text, tools and their errors, Results,
// decisions, and how a cancelled or failed run ends. Reconnects are in
// chat-resume.test.ts, refusals and CORS in chat-requests.test.ts.

import { describe, expect, it } from "vitest";
import type { RunStatus } from "../../src/protocol";
import { flags } from "../fixtures/environments";
import { type Chunk, chat, chunksOf, started, types } from "./chat-helpers";
import { createResetSession, json } from "./helpers";

describe("POST /v1/sessions/:id/chat: the stream", () => {
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
});
