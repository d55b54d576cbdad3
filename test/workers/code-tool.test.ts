import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { grantCapabilities } from "../../src/code/capabilities";
import { createEpisodeSession } from "../../src/environment/episode-session";
import { loaderIsolates } from "../../src/session/isolates";
import type { ToolContext } from "../../src/tools/types";
import { coder } from "../fixtures/code";
import { answer, coderSession, holdings, runCode } from "./code-helpers";
import { events } from "./session-helpers";

describe("codeTool", () => {
  it("answers the last expression, what the code printed, and runs in a fresh isolate each call", async () => {
    const s = await coderSession();
    const first = await runCode(
      s,
      "console.log('hi', { a: 1 }); console.error('careful'); globalThis.kept = 1; 6 * 7"
    );
    expect(first.is_error).toBe(false);
    expect(answer(first.content)).toEqual({
      result: 42,
      stdout: 'hi {"a":1}\n',
      stderr: "careful\n"
    });
    // Nothing a call left in its globals reaches the next.
    const second = await runCode(s, "return typeof globalThis.kept;");
    expect(answer(second.content)).toEqual({ result: "undefined" });
  });

  it("reads the store, granted state and granted hidden keys through capabilities", async () => {
    const s = await coderSession();
    const out = await runCode(
      s,
      `const rows = await store.find("seed", "toys");
const objects = rows.flatMap((e) => e.objects);
const purr = objects.filter((o) => o.brand === "Purr");
return { mean: purr.reduce((t, o) => t + o.rating, 0) / purr.length, count: await state.get("count"), hint: (await hidden.get("shared")).hint };`
    );
    expect(out.is_error).toBe(false);
    expect(answer(out.content).result).toEqual({
      mean: 3,
      count: 7,
      hint: "cats"
    });
  });

  it("stores the Results the code added once it succeeded, and none when it failed", async () => {
    const s = await coderSession();
    const good = await runCode(
      s,
      `await results.add({ name: "means", objects: [{ brand: "Purr", mean: 3 }], metadata: { by: "code" } }); return "ok";`
    );
    expect(good.is_error).toBe(false);
    expect(good.results.map((r) => [r.name, r.objects])).toEqual([
      ["means", [expect.objectContaining({ brand: "Purr", mean: 3 })]]
    ]);
    const before = await holdings(s);
    const bad = await runCode(
      s,
      `await results.add({ name: "half", objects: [{ x: 1 }] }); throw new Error("changed my mind");`
    );
    expect(bad.is_error).toBe(true);
    expect(bad.content).toContain("Error: changed my mind (line 1)");
    expect(bad.content).toContain("Nothing the code did was kept");
    expect(bad.results).toEqual([]);
    expect(await holdings(s)).toEqual(before);
  });

  it("answers a syntax error with its place before any isolate starts, and the session is as before", async () => {
    const s = await coderSession();
    const before = await holdings(s);
    const out = await runCode(s, "const x = ;\nreturn x");
    expect(out.is_error).toBe(true);
    expect(out.content).toMatch(/^SyntaxError: Unexpected token \(1:10\)/);
    const imported = await runCode(s, 'import fs from "node:fs";\nfs');
    expect(imported.content).toContain("import and export are not available");
    expect(await holdings(s)).toEqual(before);
  });

  it("reports a thrown error's line in the model's code, with what it printed before", async () => {
    const s = await coderSession();
    const out = await runCode(s, "console.log('step 1');\n\nnull.boom;");
    expect(out.is_error).toBe(true);
    expect(out.content).toMatch(/^TypeError: .*null.*\(line 3\)/);
    expect(out.content).toContain("stdout before the error:\nstep 1");
  });

  it("refuses a return value that is not JSON or too large, and keeps nothing", async () => {
    const s = await coderSession();
    const before = await holdings(s);
    const big = await runCode(s, "return 10n;");
    expect(big.content).toContain("the return value is not JSON");
    const fn = await runCode(s, "return () => 1;");
    expect(fn.content).toContain("the return value (a function) is not JSON");
    const huge = await runCode(s, 'return "x".repeat(5000);');
    expect(huge.content).toContain("the return value passed 4096 bytes");
    expect([big, fn, huge].every((o) => o.is_error)).toBe(true);
    expect(await holdings(s)).toEqual(before);
  });

  it("counts a run on the event log as one tool call, whatever the code did", async () => {
    const s = await coderSession();
    const seen = (await events(s)).length;
    await runCode(s, "for (let i = 0; i < 10; i++) console.log(i); 1");
    const added = (await events(s)).slice(seen).map((e) => e.type);
    expect(added.filter((t) => !t.startsWith("tool."))).toEqual([]);
    expect(added).toContain("tool.finished");
  });
});

describe("codeTool without a Worker Loader", () => {
  it("explains how to add the binding, and runs nothing", async () => {
    const session = createEpisodeSession(coder);
    await session.reset();
    const out = await session.call("run_js", { code: "globalThis.ran = 1; 1" });
    expect(out.message.is_error).toBe(true);
    expect(out.message.content).toContain("[[worker_loaders]]");
    expect(out.message.content).toContain('binding = "LOADER"');
    expect((globalThis as { ran?: unknown }).ran).toBeUndefined();
  });

  it("finds no loader where the worker has none, or the deployment turned it off", () => {
    expect(loaderIsolates({}, "LOADER")).toBeUndefined();
    expect(loaderIsolates({ LOADER: env.LOADER }, false)).toBeUndefined();
    expect(
      loaderIsolates({ LOADER: "not a loader" }, "LOADER")
    ).toBeUndefined();
    expect(loaderIsolates({ MINE: env.LOADER }, "MINE")).toBeDefined();
  });

  it("runs in a local session handed the loader", async () => {
    const session = createEpisodeSession(coder, {
      isolates: loaderIsolates(env, "LOADER")!
    });
    await session.reset();
    const out = await session.call("run_js", {
      code: "await state.get('count') * 6"
    });
    expect(out.message).toMatchObject({
      is_error: false,
      content: '{"result":42}'
    });
  });
});

describe("capabilities after their run", () => {
  it("refuse every call once the run ended", async () => {
    const session = createEpisodeSession(coder);
    await session.reset();
    const ctx = {
      environment: session.parts.environment,
      hidden: session.parts.hidden,
      state: session.parts.state
    } as unknown as ToolContext;
    const granted = grantCapabilities(
      ctx,
      { store: true, results: true, state: ["count"] },
      5
    );
    const caps = granted.capabilities as {
      results: { add(r: unknown): number };
      state: { get(k: string): unknown };
    };
    expect(caps.state.get("count")).toBe(7);
    granted.end();
    expect(() => caps.results.add({ name: "late", objects: [{}] })).toThrow(
      "this code run has ended"
    );
    expect(() => caps.state.get("count")).toThrow("this code run has ended");
    expect(granted.staged).toEqual([]);
  });
});
