// A model's call with a misspelt tool name or argument key is answered with
// what it should have sent: the tools there are, the keys the tool takes.
// The orchard fixture's `pick` takes `fruit`; its other tools take nothing.
import { describe, expect, it } from "vitest";
import type { StepResponse, ToolInvocationResponse } from "../../src/protocol";
import {
  action,
  createResetSession,
  errorOf,
  json,
  send,
  step
} from "./helpers";

const orchard = () => createResetSession({ environment: "orchard" });

describe("a misspelt call in a step", () => {
  it("names the tools there are when the tool name is wrong, and runs nothing", async () => {
    const s = await orchard();
    const out = await step(s, "pik", { fruit: "fig" });
    expect(out.observations).toEqual([
      expect.objectContaining({
        role: "tool",
        name: "pik",
        content:
          "Invalid tool call: pik is not a tool. Tools: pick, sort, taste.",
        is_error: true
      })
    ]);
    expect(out.done).toBe(false);
    // pick would have stored its basket.
    const store = await json<{ keys: unknown[] }>(
      await s.call("/environment/keys")
    );
    expect(store.keys).toEqual([]);
  });

  it("names the missing key, the unexpected one and the keys the tool takes", async () => {
    const s = await orchard();
    const out = await step(s, "pick", { frut: "fig" });
    expect(out.observations[0]).toMatchObject({
      name: "pick",
      content:
        'Invalid arguments for pick: missing required key "fruit"; unexpected key "frut". Expected keys: fruit.',
      is_error: true
    });
    // Fixed as the message says, the call runs.
    const fixed = await step(s, "pick", { fruit: "fig" });
    expect(fixed.observations[0]).toMatchObject({ content: "picked fig" });
  });

  it("keeps a wrong value's own words, without the key list", async () => {
    const s = await orchard();
    const out = await step(s, "pick", { fruit: 7 });
    expect(out.observations[0]!.content).toBe(
      "Invalid arguments for pick: fruit: Invalid input: expected string, received number."
    );
  });
});

describe("a misspelt direct call", () => {
  it("is a 404 that names the tools, over POST …/tools/:tool", async () => {
    const s = await orchard();
    const res = await s.call(
      "/tools/pik",
      send("POST", { arguments: { fruit: "fig" } })
    );
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toEqual({
      code: "not_found",
      message:
        'Environment orchard has no tool "pik". Tools: pick, sort, taste.',
      details: { tool: "pik", tools: ["pick", "sort", "taste"] }
    });
  });

  it("answers a wrong key with the same message the model reads", async () => {
    const s = await orchard();
    const res = await s.call(
      "/tools/pick",
      send("POST", { arguments: { frut: "fig" } })
    );
    expect(res.status).toBe(200);
    expect(await json<ToolInvocationResponse>(res)).toMatchObject({
      is_error: true,
      content:
        'Invalid arguments for pick: missing required key "fruit"; unexpected key "frut". Expected keys: fruit.'
    });
    // The step route says the same of the same call.
    const stepped = await json<StepResponse>(
      await s.call("/step", send("POST", action("pick", { frut: "fig" })))
    );
    expect(stepped.observations[0]!.content).toBe(
      'Invalid arguments for pick: missing required key "fruit"; unexpected key "frut". Expected keys: fruit.'
    );
  });
});
