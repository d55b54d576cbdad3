// A tool that throws leaves a trace for its author: the stack, named by
// session and tool, in wrangler dev's log, and in a local session's
// results; the model reads one line either way.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import {
  createLocalSession,
  defineEnvironment,
  scriptedModel,
  tool,
  toolCalls
} from "roost-edge/core";
import { describe, expect, inject, it } from "vitest";
import * as z from "zod";

/** The line of `file` where `text` first appears, 1-based. */
const lineOf = (file: string, text: string): number =>
  readFileSync(file, "utf8")
    .split("\n")
    .findIndex((l) => l.includes(text)) + 1;

function readThermometer(celsius: number): string {
  if (celsius > 100) throw new RangeError(`thermometer burst at ${celsius}`);
  return `${celsius} °C`;
}

const thermometer = {
  read: tool({
    description: "Reads the thermometer.",
    input: z.object({ celsius: z.number() }),
    run: ({ celsius }) => readThermometer(celsius)
  })
};

const weather = defineEnvironment({
  name: "weather",
  description: "A thermometer that bursts past 100 °C.",
  tools: thermometer,
  reset: () => "Read the thermometer."
});

describe("createLocalSession and a tool that throws", () => {
  const here = fileURLToPath(import.meta.url);
  const throwLine = lineOf(here, "throw new RangeError(`thermometer");

  it("gives the step's caller the stack, with the throwing function, file and line; the observation has the message only", async () => {
    const s = createLocalSession(weather);
    await s.reset();
    const out = await s.step(
      toolCalls({ id: "c1", name: "read", arguments: { celsius: 120 } })
    );
    expect(out.observations).toEqual([
      {
        role: "tool",
        tool_call_id: "c1",
        name: "read",
        content: "Tool read failed: thermometer burst at 120",
        is_error: true
      }
    ]);
    expect(out.exceptions).toHaveLength(1);
    const [thrown] = out.exceptions!;
    expect(thrown).toMatchObject({
      callId: "c1",
      tool: "read",
      message: "thermometer burst at 120"
    });
    expect(thrown!.stack).toMatch(/^RangeError: thermometer burst at 120\n/);
    expect(thrown!.stack).toContain("at readThermometer (");
    expect(thrown!.stack).toContain(`tool-exceptions.test.ts:${throwLine}:`);
  });

  it("gives a direct call's caller the same, and a step whose tools did not throw has no exceptions", async () => {
    const s = createLocalSession(weather);
    await s.reset();
    const direct = await s.call("read", { celsius: 101 });
    expect(direct.message.content).toBe(
      "Tool read failed: thermometer burst at 101"
    );
    expect(direct.exception?.stack).toContain("at readThermometer (");
    const fine = await s.step(
      toolCalls({ name: "read", arguments: { celsius: 20 } })
    );
    expect(fine.observations[0]).toMatchObject({ content: "20 °C" });
    expect(fine).not.toHaveProperty("exceptions");
  });

  it("gives a tree run's caller what its tools threw", async () => {
    const watched = defineEnvironment({
      name: "watched",
      description: "The thermometer, read by a decision tree.",
      tools: thermometer,
      reset: () => "Read the thermometer.",
      tree: {
        branches: [
          {
            id: "look",
            description: "Look at the thermometer.",
            instruction: "Read it.",
            tools: ["read"]
          }
        ]
      }
    });
    const run = await createLocalSession(watched).run("How hot is it?", {
      model: scriptedModel([
        { tool: "look" },
        { tool: "read", inputs: { celsius: 130 } },
        { tool: "text_response", inputs: { text: "It burst." } }
      ])
    });
    expect(run).toMatchObject({ state: "completed", text: "It burst." });
    expect(run.exceptions).toHaveLength(1);
    expect(run.exceptions![0]).toMatchObject({
      tool: "read",
      message: "thermometer burst at 130"
    });
    expect(run.exceptions![0]!.stack).toContain(
      `tool-exceptions.test.ts:${throwLine}:`
    );
  });
});

describe("wrangler dev and a tool that throws", () => {
  const fragile = fileURLToPath(
    new URL("../e2e-worker/fragile.ts", import.meta.url)
  );

  it("logs the stack mapped to the tool's own module, with the session, step, tool and call", async () => {
    const baseUrl = inject("baseUrl");
    const created = (await (
      await fetch(`${baseUrl}/v1/sessions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ environment: "fragile" })
      })
    ).json()) as { session_id: string; token: string };
    const base = `${baseUrl}/v1/sessions/${created.session_id}`;
    const headers = {
      Authorization: `Bearer ${created.token}`,
      "Content-Type": "application/json"
    };
    await fetch(`${base}/reset`, { method: "POST", headers, body: "{}" });
    const step = await fetch(`${base}/step`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        action: toolCalls({
          id: "w1",
          name: "wind",
          arguments: { tension: 5 }
        })
      })
    });
    const out = (await step.json()) as {
      observations: { content: string }[];
    };
    expect(out.observations[0]!.content).toBe(
      "Tool wind failed: spring snapped at tension 5"
    );

    // The log is written as wrangler prints it (colours, indented stack
    // lines), in pieces: wait for the heading and the throwing frame.
    const heading = `Roost: tool "wind" threw (session ${created.session_id}, episode 1, step 1, call w1):`;
    const frame = "at checkSpring (";
    let entry = "";
    while (!entry.includes(frame)) {
      await new Promise((r) => setTimeout(r, 100));
      const log = stripVTControlCharacters(
        readFileSync(inject("devLogPath"), "utf8")
      );
      const at = log.indexOf(heading);
      if (at !== -1) entry = log.slice(at);
    }
    const lines = entry
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "");
    expect(lines[1]).toBe("Error: spring snapped at tension 5");
    // Mapped back to the source (not the bundle wrangler built), unminified.
    const line = lineOf(fragile, "throw new Error(`spring snapped");
    expect(lines[2]).toMatch(
      new RegExp(
        `^at checkSpring \\(.*test/e2e-worker/fragile\\.ts:${line}:\\d+\\)$`
      )
    );

    // The developer reads it on the step's event too (the server runs with ROOST_DEV=1).
    const events = (await (
      await fetch(`${base}/events?after=0`, { headers })
    ).json()) as {
      events: {
        type: string;
        exception?: { message: string; stack?: string };
      }[];
    };
    const finished = events.events.find((e) => e.type === "tool.finished");
    expect(finished?.exception?.message).toBe("spring snapped at tension 5");
    expect(finished?.exception?.stack).toContain("at checkSpring (");
  });
});
