// A rollout's trajectory as a trainer loads it, whatever policy played:
// each action's tool calls carry their arguments as the JSON strings its
// conversation (`messages`) holds, OpenAI's form.
import { describe, expect, inject, it } from "vitest";
import { scriptedPolicy } from "../../examples/scripted-policy/index";
import { randomPolicy, rollout } from "../../src/client/index";

const baseUrl = inject("baseUrl");

describe("a trajectory's actions", () => {
  it("records every policy's actions in one form: arguments as the JSON strings its messages carry", async () => {
    for (const policy of [scriptedPolicy, randomPolicy({ seed: 7 })]) {
      const { trajectories } = await rollout({
        baseUrl,
        environment: "calculator",
        policy,
        episodes: 2
      });
      for (const t of trajectories) {
        const calls = t.actions.flatMap((a) => a.tool_calls ?? []);
        expect(calls.length).toBeGreaterThan(0);
        for (const c of calls)
          expect(typeof c.function.arguments).toBe("string");
        // The same calls, byte for byte, as the conversation holds them.
        const sent = t.messages.flatMap((m) =>
          m.role === "assistant" ? (m.tool_calls ?? []) : []
        );
        expect(
          calls.map((c) => ({
            id: c.id,
            type: "function",
            function: c.function
          }))
        ).toEqual(sent);
      }
    }
  });
});
