// The catalog example where a session has no SQLite of its own: a second
// prompt searches again, and its tools say why they cannot run.

import { describe, expect, it } from "vitest";
import { catalog } from "../../examples/catalog/index";
import { createLocalSession } from "../../src/index";
import { toolCalls } from "../../src/messages/build";
import { createResetSession, json, send } from "./helpers";

describe("catalog without a session's SQLite", () => {
  it("searches again for a second prompt of the same session", async () => {
    const s = await createResetSession({ environment: "catalog" });
    const ask = async (prompt: string) => {
      const started = await json<{ run_id: string }>(
        await s.call("/runs", send("POST", { prompt }))
      );
      return json<{ state: string; tasks: { task: string }[] }>(
        await s.call(`/runs/${started.run_id}?wait=20`)
      );
    };
    for (const prompt of ["cat toys rated 4.5", "dog beds"]) {
      const r = await ask(prompt);
      expect(r.state).toBe("completed");
      expect(r.tasks.map((t) => t.task)).toEqual([
        "search",
        "query",
        "search",
        "aggregate",
        "text_response"
      ]);
    }
  });

  it("resets, and its tools say why they cannot run", async () => {
    const s = createLocalSession(catalog);
    const { observations } = await s.reset();
    expect(observations[0]!.content).toContain("a pet owner");
    const out = await s.step(
      toolCalls({ name: "query", arguments: { collection: "products" } })
    );
    expect(out.observations[0]).toMatchObject({ is_error: true });
    expect(out.observations[0]!.content).toContain("createLocalSession");
    expect(out.done).toBe(false);
  });
});
