import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { answerPattern, runShellBlock } from "./helpers/sh-walkthrough";

// The README's curl walkthrough (also docs/01-getting-started.md), against a real `wrangler dev` over loopback.
const base = inject("baseUrl");

const send = async (
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {}
) => {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.body === undefined
        ? {}
        : { "content-type": "application/json" }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {})
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>
  };
};

const incr = (id: string) => ({
  action: {
    role: "assistant",
    tool_calls: [
      { id, type: "function", function: { name: "incr", arguments: "{}" } }
    ]
  }
});

describe("README walkthrough against wrangler dev", () => {
  // The block itself, as a newcomer pastes it: the front page's copy and
  // the getting-started page's.
  it.each(["README.md", "docs/01-getting-started.md"])(
    "%s: runs as written and answers as its comments show",
    async (file) => {
      const text = readFileSync(file, "utf8");
      const at = text.indexOf("## Walkthrough with curl");
      expect(at).toBeGreaterThan(0);
      const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at))?.[1] ?? "";
      const steps = await runShellBlock(block, base);
      expect(steps.map((s) => s.command.split(" ")[0])).toContain("echo");
      expect(steps.filter((s) => s.status !== undefined).length).toBe(8);
      for (const step of steps)
        if (step.status !== undefined)
          expect(step.status, step.command).toBeLessThan(400);
      const shown = steps.filter((s) => s.expected !== undefined);
      expect(shown.length).toBe(3);
      for (const step of shown)
        expect(step.printed, step.command).toMatch(
          answerPattern(step.expected!, base)
        );
    }
  );

  it("lists the counter environment with its tools", async () => {
    const { status, body } = await send("/v1/environments");
    expect(status).toBe(200);
    const envs = body.environments as {
      name: string;
      tools: { function: { name: string } }[];
    }[];
    const counter = envs.find((e) => e.name === "counter");
    expect(counter?.tools.map((t) => t.function.name)).toEqual([
      "incr",
      "decr"
    ]);
  });

  it("creates, resets, steps and reads a session as documented", async () => {
    const created = await send("/v1/sessions", {
      body: { environment: "counter" }
    });
    expect(created.status).toBe(201);
    const {
      session_id: id,
      token,
      ws_url
    } = created.body as { session_id: string; token: string; ws_url: string };
    expect(token).toMatch(/^v1\.dev\./);
    expect(ws_url).toBe(`${base.replace("http", "ws")}/v1/sessions/${id}/ws`);
    const s = `/v1/sessions/${id}`;

    const reset = await send(`${s}/reset`, { token, body: {} });
    expect(reset.body.observations).toEqual([
      { role: "user", content: "Count to 10. counter=0" }
    ]);

    const step = await send(`${s}/step`, { token, body: incr("c1") });
    expect(step.body).toEqual({
      observations: [
        {
          role: "tool",
          tool_call_id: "c1",
          name: "incr",
          content: "counter=1",
          is_error: false
        }
      ],
      reward: 0,
      done: false,
      truncated: false
    });
    expect((await send(s, { token })).body).toMatchObject({
      episode: 1,
      steps: 1,
      status: "running"
    });
    expect((await send(`${s}/state`, { token })).body).toEqual({
      state: { count: 1 }
    });
    expect((await send(`${s}/environment`, { token })).body).toEqual({
      store: {}
    });
    expect(
      ((await send(`${s}/messages`, { token })).body.messages as unknown[])
        .length
    ).toBe(3);

    for (let i = 2; i <= 10; i++)
      await send(`${s}/step`, { token, body: incr(`c${i}`) });
    expect((await send(s, { token })).body).toMatchObject({
      steps: 10,
      reward: 1,
      return: 1,
      done: true
    });
    const after = await send(`${s}/step`, { token, body: incr("c11") });
    expect(after.status).toBe(409);
    expect((after.body.error as { code: string }).code).toBe(
      "episode_not_running"
    );
  });

  it("answers bad input and missing credentials with the documented errors", async () => {
    const noAuth = await send("/v1/sessions/abc/state");
    expect(noAuth.status).toBe(401);
    const bad = await fetch(`${base}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{"
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_json"
    );
  });
});
