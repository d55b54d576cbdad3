import { describe, expect, it } from "vitest";
import * as z from "zod";
import { defineEnvironment } from "../../environment/define-environment";
import { redactPath } from "../../http/errors";
import { contentText, toolCalls } from "../../messages/build";
import { createLocalSession } from "../../runner/local-session";
import { toolErrorType } from "./translate";

// OpenEnv's client raises a tool error by its type; Roost's tool messages
// say what failed in words. These are the words the runtime writes today.
const env = defineEnvironment({
  name: "faults",
  description: "Tools that fail each way.",
  reset: () => "Fail.",
  tools: (tool) => ({
    throws: tool({
      description: "Throws.",
      input: z.object({}),
      run: () => {
        throw new Error("boom");
      }
    }),
    strict: tool({
      description: "Needs n.",
      input: z.object({ n: z.number() }),
      run: ({ n }) => String(n)
    }),
    slow: tool({
      description: "Never answers in time.",
      input: z.object({}),
      timeoutMs: 5,
      run: () => new Promise<string>(() => {})
    })
  })
});

describe("toolErrorType", () => {
  it("classifies each way a Roost tool call fails as OpenEnv's error type", async () => {
    const session = createLocalSession(env);
    await session.reset();
    const { observations } = await session.step(
      toolCalls(
        { name: "nope" },
        { name: "strict", arguments: { n: "x" } },
        { name: "throws" },
        { name: "slow" }
      )
    );
    const types = observations
      .filter((m) => m.role === "tool")
      .map((m) => toolErrorType(contentText(m.content)));
    expect(types).toEqual([
      "tool_not_found",
      "invalid_args",
      "execution_error",
      "timeout"
    ]);
  });
});

describe("redactPath", () => {
  it("keeps OpenEnv's path credentials out of log lines", () => {
    expect(
      redactPath("/v1/environments/counter/openenv/c/1795.1.v1.k.secret/ws")
    ).toBe("/v1/environments/counter/openenv/c/…/ws");
    expect(
      redactPath("/v1/environments/counter/openenv/s/abc.v1.k.sig/ws")
    ).toBe("/v1/environments/counter/openenv/s/…/ws");
    expect(redactPath("/v1/sessions/abc/step")).toBe("/v1/sessions/abc/step");
  });
});
