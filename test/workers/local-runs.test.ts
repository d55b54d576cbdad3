import { describe, expect, it } from "vitest";
import {
  createLocalSession,
  defineEnvironment,
  type LocalEvent,
  scriptedModel
} from "../../src/index";
import type { EventFrame, RunStatus } from "../../src/protocol";
import { forest, toolbox, toolboxOffers } from "../fixtures/environments";
import { createResetSession, json, send, type TestSession } from "./helpers";

const sessionRun = async (s: TestSession, prompt: string) => {
  const started = await s.call("/runs", send("POST", { prompt }));
  expect(started.status).toBe(202);
  const { run_id } = await json<{ run_id: string }>(started);
  const run = await json<RunStatus>(await s.call(`/runs/${run_id}?wait=20`));
  const { events } = await json<{ events: EventFrame[] }>(
    await s.call("/events?after=0&limit=10000")
  );
  const { messages } = await json<{ messages: unknown[] }>(
    await s.call("/messages?limit=100")
  );
  return { run, events, messages };
};

/** Run ids differ between the two; everything else must not. */
const withoutRunId = (value: unknown, runId: string): unknown =>
  JSON.parse(JSON.stringify(value).replaceAll(runId, "RUN"));

const treeEvents = (events: readonly { type: string }[]) =>
  events
    .filter((e) => e.type === "tree.decision" || e.type === "tree.completed")
    .map((e) => {
      const { seq: _s, at: _a, episode: _e, ...rest } = e as EventFrame;
      return rest;
    });

describe("createLocalSession(env).run: a tree in memory", () => {
  // Each scenario walks a different path of the loop: branches over passes,
  // self-healing, the recursion limit, the one-option shortcut, runIf,
  // availability, a wrong option name and an impossible task.
  for (const prompt of [
    "multi",
    "heal",
    "limit",
    "single",
    "auto",
    "locked",
    "unknown",
    "impossible",
    "giveup"
  ]) {
    it(`runs "${prompt}" exactly as a session does`, async () => {
      const remote = await sessionRun(
        await createResetSession({ environment: "forest" }),
        prompt
      );
      const local = createLocalSession(forest);
      await local.reset();
      const events: LocalEvent[] = [];
      const run = await local.run(prompt, { onEvent: (e) => events.push(e) });

      expect(run.state).toBe("completed");
      expect(run.outcome).toBe(remote.run.outcome);
      expect(run.text).toBe(remote.run.final_text);
      expect(run.passes).toBe(remote.run.passes);
      expect(withoutRunId(run.tasks.at(-1)?.tasks, run.runId)).toEqual(
        withoutRunId(remote.run.tasks, remote.run.run_id)
      );
      expect(withoutRunId(treeEvents(events), run.runId)).toEqual(
        withoutRunId(treeEvents(remote.events), remote.run.run_id)
      );
      expect(
        withoutRunId(local.parts.state.get("messages"), run.runId)
      ).toEqual(withoutRunId(remote.messages, remote.run.run_id));
    });
  }

  it("resets by itself when there is no episode yet, and keeps the conversation between runs of an episode", async () => {
    const local = createLocalSession(forest);
    const first = await local.run("echo");
    expect(local.status.episode).toBe(1);
    // The first run's prompt is the only turn the model has seen.
    expect(first.text).toBe("echo 0: 1 turns");
    const second = await local.run("echo");
    // Prompt, reply, prompt: the history carries over within the episode.
    expect(second.text).toBe("echo 0: 3 turns");
    expect(second.history.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant"
    ]);
    await local.reset();
    const fresh = await local.run("echo");
    expect(fresh.text).toBe("echo 0: 1 turns");
    expect(fresh.tasks).toHaveLength(1);
  });

  it("ends as cancelled when its signal is aborted, keeping the passes done", async () => {
    const local = createLocalSession(forest);
    const controller = new AbortController();
    let decisions = 0;
    const run = await local.run("limit", {
      signal: controller.signal,
      onEvent: (e) => {
        // Cancel once the first pass has reached its tool.
        if (e.type === "tree.decision" && ++decisions === 2) controller.abort();
      }
    });
    expect(run).toMatchObject({ state: "cancelled", passes: 1 });
    expect(run.outcome).toBeUndefined();
  });

  it("offers only the tools the episode's reset chose", async () => {
    const local = createLocalSession(toolbox);
    await local.reset({ task: { tools: ["saw"] } });
    const prompt = `local ${crypto.randomUUID()}`;
    const run = await local.run(prompt);
    expect(toolboxOffers.get(prompt)).toEqual([["saw", "text_response"]]);
    expect(run.text).toBe("used the saw");
  });

  it("refuses what a session refuses: no tree, no model, an empty prompt, two runs at once", async () => {
    const plain = defineEnvironment({
      name: "plain",
      description: "No tree.",
      tools: {},
      reset: () => "Ready."
    });
    await expect(createLocalSession(plain).run("hi")).rejects.toMatchObject({
      code: "invalid_request"
    });
    const modelless = defineEnvironment({
      name: "modelless",
      description: "A tree without a model of its own.",
      tools: {},
      tree: {},
      reset: () => "Ready."
    });
    const s = createLocalSession(modelless);
    await expect(s.run("hi")).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("{ model }")
    });
    const model = scriptedModel([
      { tool: "text_response", inputs: { text: "hello" } }
    ]);
    await expect(s.run("hi", { model })).resolves.toMatchObject({
      outcome: "answered",
      text: "hello"
    });
    await expect(s.run("", { model })).rejects.toMatchObject({
      code: "invalid_request"
    });
    const local = createLocalSession(forest);
    const going = local.run("multi");
    await expect(local.run("multi")).rejects.toMatchObject({
      code: "conflict"
    });
    await expect(going).resolves.toMatchObject({ outcome: "ended" });
  });
});
