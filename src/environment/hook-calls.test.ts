import { describe, expect, it } from "vitest";
import * as z from "zod";
import { toolCalls } from "../messages/build";
import { defineState } from "../state/define-state";
import { result } from "../store/result";
import { tool } from "../tools/define-tool";
import { dataset } from "./dataset";
import { defineEnvironment } from "./define-environment";
import { createEpisodeSession } from "./episode-session";
import { NO_TOOL_CALLS } from "./hook-calls";
import { createRegistry } from "./registry";

const story = defineEnvironment({
  name: "story",
  description: "Write a story and print it.",
  task: z.object({ topic: z.string() }),
  state: defineState({ printed: { type: z.array(z.string()).default([]) } }),
  maxSteps: 3,
  dataset: dataset({
    size: 3,
    get: (i) => ({ topic: ["frogs", "owls", "bees"][i]! })
  }),
  tools: {
    print_story: tool({
      description: "Print a story.",
      input: z.object({ story: z.string().describe("Story to print.") }),
      run: ({ story: text }, ctx) => {
        ctx.state.set("printed", text);
        ctx.episode.end({ reward: 1 });
        return "printed";
      }
    }),
    note: tool({
      description: "Keep a note.",
      input: z.object({ text: z.string() }),
      run: async function* ({ text }) {
        yield result({ name: "notes", objects: [{ text }] });
      }
    })
  },
  reset: ({ task }) =>
    `Write a 5 word story about ${task.topic} and call print_story.`
});

describe("episodes", () => {
  it("answers an action without tool calls clearly, with reward 0, not done", async () => {
    const s = createEpisodeSession(story);
    await s.reset({ task_index: 1 });
    const out = await s.step({ role: "assistant", content: "thinking" });
    expect(out.observations).toEqual([
      { role: "user", content: NO_TOOL_CALLS }
    ]);
    expect(out).toMatchObject({ reward: 0, done: false, truncated: false });
  });

  it("lets a tool end the episode with a reward through ctx.episode", async () => {
    const s = createEpisodeSession(story);
    await s.reset({ task: { topic: "cats" } });
    const out = await s.step(
      toolCalls({
        name: "print_story",
        arguments: { story: "Cats nap all day long" }
      })
    );
    expect(out).toMatchObject({ reward: 1, done: true });
    expect(s.parts.state.get("printed")).toEqual(["Cats nap all day long"]);
  });

  it("truncates at maxSteps", async () => {
    const s = createEpisodeSession(story);
    await s.reset({ task_index: 0 });
    await s.step(toolCalls({ name: "note", arguments: { text: "a" } }));
    await s.step(toolCalls({ name: "note", arguments: { text: "b" } }));
    const third = await s.step(
      toolCalls({ name: "note", arguments: { text: "c" } })
    );
    expect(third).toMatchObject({ done: false, truncated: true });
    expect(s.parts.environment.find("note", "notes")).toHaveLength(3);
    await expect(
      s.step(toolCalls({ name: "note", arguments: { text: "d" } }))
    ).rejects.toMatchObject({ code: "episode_not_running" });
  });

  it("keeps the transcript: reset observations, then each action and its observations", async () => {
    const s = createEpisodeSession(story);
    await s.reset({ task_index: 2 });
    const action = toolCalls({ name: "note", arguments: { text: "x" } });
    await s.step(action);
    const messages = s.parts.state.get("messages") ?? [];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(messages[0]!.content).toContain("about bees");
    expect(messages[1]).toEqual(action);
  });

  it("starts each episode empty", async () => {
    const s = createEpisodeSession(story);
    await s.reset({ task_index: 0 });
    await s.step(toolCalls({ name: "note", arguments: { text: "a" } }));
    await s.reset({ task_index: 0 });
    expect(s.parts.environment.isEmpty()).toBe(true);
    expect(s.parts.state.get("messages")).toHaveLength(1);
    expect(s.status).toMatchObject({ episode: 2, steps: 0, return: 0 });
  });

  it("rejects a step before reset and invalid tasks with the field named", async () => {
    const s = createEpisodeSession(story);
    await expect(s.step(toolCalls({ name: "note" }))).rejects.toMatchObject({
      code: "episode_not_running"
    });
    await expect(s.reset({ task: { topic: 3 } })).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("task.topic")
    });
    await expect(s.reset({ task_index: 3 })).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "task_index" }
    });
  });

  it("invokes a tool directly without a transcript entry or reward", async () => {
    const s = createEpisodeSession(story);
    await s.reset({ task_index: 0 });
    const out = await s.call("print_story", { story: "a b c d e" });
    expect(out.message.is_error).toBe(false);
    expect(s.status).toMatchObject({ steps: 0, return: 0, done: false });
    expect(s.parts.state.get("messages")).toHaveLength(1);
    await expect(s.call("missing")).rejects.toMatchObject({
      code: "not_found"
    });
  });

  it("uses a custom step when given, with Aviary-style exec of tool calls", async () => {
    const custom = defineEnvironment({
      name: "custom",
      description: "Custom step.",
      tools: {
        ping: tool({
          description: "Ping.",
          input: z.object({}),
          run: () => "pong"
        })
      },
      reset: () => "go",
      step: async (action, ctx) => {
        const msgs = await ctx.executeToolCalls(action);
        return { observations: msgs, reward: 0.5, done: ctx.step >= 2 };
      }
    });
    const s = createEpisodeSession(custom);
    await s.reset();
    const first = await s.step(toolCalls({ name: "ping" }));
    expect(first).toMatchObject({ reward: 0.5, done: false });
    expect(first.observations[0]).toMatchObject({ content: "pong" });
    expect((await s.step(toolCalls({ name: "ping" }))).done).toBe(true);
    expect(s.status.return).toBe(1);
  });
});

describe("registry", () => {
  it("describes environments with task, state and tool schemas", () => {
    const registry = createRegistry([story]);
    const [info] = registry.describe();
    expect(info).toMatchObject({
      name: "story",
      dataset_size: 3,
      max_steps: 3
    });
    expect(info!.task_schema).toMatchObject({
      type: "object",
      required: ["topic"]
    });
    expect(info!.tools.map((t) => t.function.name)).toEqual([
      "print_story",
      "note"
    ]);
    expect(() => registry.get("nope")).toThrow(/No environment named "nope"/);
    expect(() => createRegistry([story, story])).toThrow(/Two environments/);
  });
});
