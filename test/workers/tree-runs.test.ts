import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { RunStatus } from "../../src/protocol";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import { flags, seenRequests } from "../fixtures/environments";
import {
  createResetSession,
  errorOf,
  json,
  send,
  type TestSession
} from "./helpers";
import { abort, api, inside, stubOf } from "./session-helpers";
import { hasType, openSocket } from "./ws-helpers";

const start = async (s: TestSession, prompt: string): Promise<string> => {
  const res = await s.call("/runs", send("POST", { prompt }));
  expect(res.status).toBe(202);
  return (await json<{ run_id: string }>(res)).run_id;
};

const finished = async (s: TestSession, runId: string): Promise<RunStatus> => {
  const res = await s.call(`/runs/${runId}?wait=20`);
  expect(res.status).toBe(200);
  const run = await json<RunStatus>(res);
  expect(["completed", "failed", "cancelled"]).toContain(run.state);
  return run;
};

const run = async (s: TestSession, prompt: string) =>
  finished(s, await start(s, prompt));

const started = (id: string) =>
  vi.waitFor(
    () => {
      if (!flags.started.has(id)) throw new Error(`gate ${id} not reached`);
    },
    { timeout: 15_000, interval: 10 }
  );

const tasks = (r: RunStatus) =>
  r.tasks.map((t) => `${t.pass}:${t.task}${t.error ? "!" : ""}`);

describe("decision-tree runs", () => {
  it("walks branches over passes and ends on an end-capable tool", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "multi");
    expect(r).toMatchObject({
      state: "completed",
      outcome: "ended",
      passes: 2,
      final_text: "finished",
      model: "scripted"
    });
    expect(tasks(r)).toEqual(["1:grove", "1:probe", "2:finish"]);
    expect(r.tasks[1]).toMatchObject({ inputs: { depth: 2 } });
    // The probe's Result went into the environment.
    const store = await json<{ entries: { objects: { depth: number }[] }[] }>(
      await s.call("/environment?tool=probe&name=probes")
    );
    expect(store.entries[0]!.objects[0]!.depth).toBe(2);
    // The transcript holds the prompt, the decisions' messages, calls and results.
    const messages = await json<{
      messages: { role: string; content: unknown }[];
    }>(await s.call("/messages?limit=100"));
    expect(messages.messages.map((m) => m.role)).toEqual([
      "user",
      "user",
      "assistant",
      "assistant",
      "tool",
      "assistant",
      "tool",
      // The end tool's message, as the run's reply.
      "assistant"
    ]);
    expect(messages.messages.at(-1)?.content).toBe("finished");
  });

  it("keeps each run's tasks apart when a prompt is asked again", async () => {
    const s = await createResetSession({ environment: "forest" });
    const first = await run(s, "multi");
    const second = await run(s, "multi");
    // The second run starts from nothing done: its own three tasks.
    expect(tasks(second)).toEqual(["1:grove", "1:probe", "2:finish"]);
    expect(second.passes).toBe(2);
    const again = await json<RunStatus>(await s.call(`/runs/${first.run_id}`));
    expect(tasks(again)).toEqual(["1:grove", "1:probe", "2:finish"]);
  });

  it("reports a text answer marked impossible as impossible", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "giveup");
    expect(r).toMatchObject({
      state: "completed",
      outcome: "impossible",
      passes: 1,
      final_text: "There is no way to do that here."
    });
  });

  it("retries the environment's own model after a retryable error", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "hiccup:once");
    expect(r).toMatchObject({
      state: "completed",
      outcome: "answered",
      final_text: "recovered"
    });
  });

  it("asks no model at a node with one option that needs no inputs, and shows branches with the tools they lead to", async () => {
    const s = await createResetSession({ environment: "forest" });
    const before = seenRequests.length;
    const r = await run(s, "single");
    expect(r).toMatchObject({ outcome: "ended", final_text: "finished" });
    expect(tasks(r)).toEqual(["1:clearing", "1:finish"]);
    expect(r.tasks[1]!.reasoning).toBe(
      "Only one option available: finish (and no inputs are needed)."
    );
    const asked = seenRequests
      .slice(before)
      .filter((q) => q.treeData.userPrompt === "single");
    // Only the root decision reached the model.
    expect(asked.map((q) => q.node)).toEqual(["root"]);
    const offered = Object.fromEntries(
      asked[0]!.options.map((o) => [o.name, o.leadsTo])
    );
    expect(offered).toMatchObject({
      grove: { probe: {}, flaky: {}, wait: {} },
      clearing: { finish: {} }
    });
  });

  it("forces a final answer after exactly recursionLimit passes", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "limit");
    expect(r.outcome).toBe("recursion_limit");
    expect(r.passes).toBe(4);
    expect(tasks(r).filter((t) => t.endsWith("probe"))).toEqual([
      "1:probe",
      "2:probe",
      "3:probe"
    ]);
    expect(r.final_text).toBe("forced after 3 passes (limit)");
  });

  it("keeps going after a yielded error, shows it to the model, and clears it on success", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "heal");
    expect(tasks(r)).toEqual([
      "1:grove",
      "1:flaky!",
      "2:grove",
      "2:flaky",
      "3:text_response"
    ]);
    expect(r.final_text).toBe("healed after 0 open errors");
    const sawError = seenRequests.some(
      (q) =>
        q.treeData.userPrompt === "heal" &&
        (q.treeData.errors.flaky ?? []).some((e) =>
          e.startsWith(
            "Avoidable error: Try again: the first call always fails."
          )
        )
    );
    expect(sawError).toBe(true);
  });

  it("re-asks a model that names an option that is not offered, with feedback", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "unknown");
    expect(r.outcome).toBe("answered");
    expect(r.final_text).toMatch(/corrected: "probe" is not an option at root/);
  });

  it("fails the run with a clear error when the model keeps naming unknown options; the session stays usable", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "lost");
    expect(r.state).toBe("failed");
    expect(r.error).toMatchObject({ code: "model_error" });
    expect(r.error?.message).toMatch(/"nowhere".*3 times/);
    const next = await run(s, "multi");
    expect(next.outcome).toBe("ended");
  });

  it("fails the run when the model errors, without a 500 anywhere", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "broken");
    expect(r.state).toBe("failed");
    expect(r.error).toMatchObject({
      code: "model_error",
      details: { status: 400 }
    });
    expect(r.error?.message).toMatch(/the model is down/);
    expect((await s.call("")).status).toBe(200);
  });

  it("lists unavailable tools with their reason, and offers them once available", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "locked");
    expect(r.outcome).toBe("ended");
    expect(r.final_text).toBe("unlocked");
    const first = seenRequests.find(
      (q) => q.treeData.userPrompt === "locked" && q.node === "root"
    )!;
    expect(first.unavailable).toEqual([
      expect.objectContaining({
        name: "locked",
        reason: "Probe something first."
      })
    ]);
    expect(first.options.map((o) => o.name)).not.toContain("locked");
  });

  it("ends on impossible with a final answer", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "impossible");
    expect(r.outcome).toBe("impossible");
    expect(r.passes).toBe(1);
    expect(r.final_text).toBe("forced after 0 passes (ended)");
  });

  it("runs runIf tools before deciding", async () => {
    const s = await createResetSession({ environment: "forest" });
    const r = await run(s, "auto");
    expect(tasks(r)).toEqual(["1:auto", "1:text_response"]);
    expect(r.final_text).toBe("auto ran 1 time(s)");
  });

  it("continues the conversation on a second prompt, with the store kept", async () => {
    const s = await createResetSession({ environment: "forest" });
    await run(s, "multi");
    const second = await run(s, "echo");
    // user + assistant turns of the first run, then the second prompt.
    expect(second.final_text).toMatch(/echo \d+: 3 turns/);
    const history = seenRequests.findLast(
      (r) => r.treeData.userPrompt === "echo"
    )?.treeData.conversationHistory;
    // Elysia's history: the prompts and the tree's replies — decision
    // messages, text the tools streamed, and the end tool's message — and
    // not the reset's observation ("Forest ready.").
    expect(history).toEqual([
      { role: "user", content: "multi" },
      {
        role: "assistant",
        content:
          "Into the grove. Probing. Found a probe at depth 2. Finishing. finished"
      },
      { role: "user", content: "echo" }
    ]);
    const store = await json<{ store: Record<string, unknown> }>(
      await s.call("/environment")
    );
    expect(Object.keys(store.store)).toEqual(["probe"]);
  });

  it("streams tree.decision, update, result and tree.completed frames", async () => {
    const s = await createResetSession({ environment: "forest" });
    const sock = await openSocket(s.session_id, s.token);
    const runId = await start(s, "multi");
    const frames = await sock.until(hasType("tree.completed"));
    const types = frames.map((f) => f.type);
    expect(types).toContain("tree.decision");
    expect(types).toContain("update");
    expect(types).toContain("result");
    const done = frames.find((f) => f.type === "tree.completed")!;
    expect(done).toMatchObject({
      run_id: runId,
      payload: { state: "completed", outcome: "ended" }
    });
    sock.ws.close();
  });

  it("refuses a second run while one is going, and runs on environments without a tree", async () => {
    const s = await createResetSession({ environment: "forest" });
    const id = `second-${crypto.randomUUID()}`;
    const first = await start(s, `gate:${id}`);
    await started(id);
    const second = await s.call("/runs", send("POST", { prompt: "multi" }));
    expect(second.status).toBe(409);
    expect((await errorOf(second)).details).toMatchObject({ run_id: first });
    flags.open.add(id);
    expect((await finished(s, first)).outcome).toBe("answered");

    const counter = await createResetSession({ environment: "counter" });
    const none = await counter.call("/runs", send("POST", { prompt: "hi" }));
    expect(none.status).toBe(400);
    const unknown = await s.call(
      "/runs",
      send("POST", { prompt: "multi", model: "gpt-nothing" })
    );
    expect(unknown.status).toBe(400);
    expect((await s.call("/runs/nope")).status).toBe(404);
  });

  it("cancels between passes", async () => {
    const s = await createResetSession({ environment: "forest" });
    const id = `cancel-${crypto.randomUUID()}`;
    const runId = await start(s, `gate:${id}`);
    await started(id);
    const cancel = await s.call(`/runs/${runId}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(200);
    expect((await json<RunStatus>(cancel)).cancel_requested).toBe(true);
    flags.open.add(id);
    const r = await finished(s, runId);
    expect(r.state).toBe("cancelled");
    // The pass under way finished; no pass after it ran.
    expect(tasks(r)).toEqual(["1:grove", "1:wait"]);
  });

  it("cancels over the WebSocket", async () => {
    const s = await createResetSession({ environment: "forest" });
    const id = `ws-cancel-${crypto.randomUUID()}`;
    const runId = await start(s, `gate:${id}`);
    await started(id);
    const sock = await openSocket(s.session_id, s.token);
    sock.send({ type: "cancel", id: "c1", run_id: runId });
    const replies = await sock.until((f) => f.some((x) => x.id === "c1"));
    expect(replies.find((x) => x.id === "c1")).toMatchObject({
      ok: true,
      value: { cancel_requested: true }
    });
    flags.open.add(id);
    expect((await finished(s, runId)).state).toBe("cancelled");
    sock.ws.close();
  });

  it("survives the object being aborted mid-run: the run finishes", async () => {
    const s = await createResetSession({ environment: "forest" });
    const id = `abort-${crypto.randomUUID()}`;
    const runId = await start(s, `gate:${id}`);
    const objectId = env.SESSIONS.idFromString(s.session_id);
    const stub = api(env.SESSIONS.get(objectId));
    await started(id);
    await abort(stub);
    // The gate stays open for the retried pass.
    flags.open.add(id);
    const r = await finished(s, runId);
    expect(r).toMatchObject({ state: "completed", outcome: "answered" });
    expect(r.final_text).toBe(`opened ${id}`);
    // The aborted pass left nothing: one wait task, from the retried pass.
    expect(tasks(r)).toEqual(["1:grove", "1:wait", "2:text_response"]);
  });

  it("is cancelled by a reset", async () => {
    const s = await createResetSession({ environment: "forest" });
    const id = `reset-${crypto.randomUUID()}`;
    const runId = await start(s, `gate:${id}`);
    await started(id);
    const stub = stubOf(s.session_id);
    // Queued behind the waiting pass before the gate opens.
    await inside(stub, (o) => {
      void o.op("reset", {}, SERVER_GRANT).catch(() => {});
    });
    flags.open.add(id);
    expect((await finished(s, runId)).state).toBe("cancelled");
  });
});
