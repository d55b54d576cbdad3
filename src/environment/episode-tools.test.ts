import { describe, expect, it } from "vitest";
import * as z from "zod";
import { toolCalls } from "../messages/build";
import { defineState } from "../state/define-state";
import { defineEnvironment } from "./define-environment";
import { createEpisodeSession } from "./episode-session";

// Aviary's reset() -> (observations, tools), in memory.
const workshop = defineEnvironment({
  name: "workshop",
  description: "Each episode offers the tools its task names.",
  task: z.object({ offer: z.array(z.string()).optional() }).default({}),
  state: defineState({ used: { type: z.array(z.string()).default([]) } }),
  tools: (t) => ({
    saw: t({
      description: "Saw.",
      input: z.object({}),
      run: (_args, ctx) => {
        ctx.state.set("used", "saw");
        return "sawn";
      }
    }),
    drill: t({
      description: "Drill.",
      input: z.object({}),
      run: (_args, ctx) => {
        ctx.state.set("used", "drill");
        return "drilled";
      }
    })
  }),
  reset: ({ task }) =>
    task.offer === undefined
      ? "All tools."
      : { observations: "Some tools.", tools: task.offer as "saw"[] }
});

const names = (tools: { function: { name: string } }[]) =>
  tools.map((t) => t.function.name);

describe("tools per reset in a local session", () => {
  it("offers every tool unless reset chooses", async () => {
    const s = createEpisodeSession(workshop);
    const out = await s.reset();
    expect(names(out.tools)).toEqual(["saw", "drill"]);
    expect(out.observations).toEqual([{ role: "user", content: "All tools." }]);
  });

  it("refuses the others in a step as invalid tool calls, and in a direct call", async () => {
    const s = createEpisodeSession(workshop);
    const out = await s.reset({ task: { offer: ["drill"] } });
    expect(names(out.tools)).toEqual(["drill"]);
    const step = await s.step(toolCalls({ name: "saw" }, { name: "drill" }));
    expect(step.observations.map((m) => m.content)).toEqual([
      "Invalid tool call: saw is not a tool. Tools: drill.",
      "drilled"
    ]);
    expect(s.parts.state.get("used")).toEqual(["drill"]);
    await expect(s.call("saw")).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringContaining("not offered in this episode")
    });
    expect((await s.call("drill")).message.content).toBe("drilled");
  });

  it("chooses again at the next reset", async () => {
    const s = createEpisodeSession(workshop);
    await s.reset({ task: { offer: ["drill"] } });
    expect(names((await s.reset({ task: { offer: ["saw"] } })).tools)).toEqual([
      "saw"
    ]);
    expect((await s.call("saw")).message.content).toBe("sawn");
    expect(names((await s.reset()).tools)).toEqual(["saw", "drill"]);
    expect((await s.call("drill")).message.content).toBe("drilled");
  });

  it("throws, naming it, when reset chooses a tool the environment lacks, and keeps the last episode", async () => {
    const s = createEpisodeSession(workshop);
    await s.reset({ task: { offer: ["drill"] } });
    await expect(
      s.reset({ task: { offer: ["saw", "lathe"] } })
    ).rejects.toMatchObject({
      code: "internal",
      message: expect.stringContaining('"lathe"')
    });
    expect(s.status.episode).toBe(1);
    await expect(s.call("saw")).rejects.toMatchObject({ code: "not_found" });
    expect((await s.call("drill")).message.content).toBe("drilled");
  });
});
