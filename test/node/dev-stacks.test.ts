// Under `npm start` (roost-edge dev) the stacks the worker sends on name
// the author's files, not wrangler's bundle: a tool's on `tool.finished`
// and a hook's in a `hook_failed` answer, each at the line that threw.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postJson, spawnNpmStart, stopNpmStart } from "./helpers/npm-start";
import { testPort } from "./helpers/test-port";

const dir = mkdtempSync(join(tmpdir(), "roost-stacks-"));
const file = join(dir, "thrower.ts");
// Line numbers matter below: the tool throws on line 12, reset on line 17.
writeFileSync(
  file,
  `import * as z from "zod";
import { defineEnvironment } from "roost-edge/core";

export const thrower = defineEnvironment({
  name: "thrower",
  task: z.object({ resetThrows: z.boolean() }).default({ resetThrows: false }),
  tools: (tool) => ({
    boom: tool({
      description: "Throws.",
      input: z.object({}),
      run: () => {
        throw new Error("tool kaboom");
      }
    })
  }),
  reset: ({ task }) => {
    if (task.resetThrows) throw new RangeError("reset kaboom");
    return "go";
  }
});
`
);

let server: ReturnType<typeof spawnNpmStart>;
let base: string;

beforeAll(async () => {
  const port = await testPort();
  base = `http://127.0.0.1:${port}`;
  server = spawnNpmStart([file], port, await testPort());
  await server.listening;
}, 180_000);

afterAll(async () => {
  await stopNpmStart(server.child);
  rmSync(dir, { recursive: true, force: true });
});

const session = async (task?: unknown) => {
  const created = await postJson<{ session_id: string; token: string }>(
    `${base}/v1/sessions`,
    { environment: "thrower", ...(task === undefined ? {} : { task }) }
  );
  expect(created.status).toBe(201);
  return created.body;
};

describe("stacks in development", () => {
  it("on tool.finished name the author's file and line", async () => {
    const s = await session();
    const url = `${base}/v1/sessions/${s.session_id}`;
    expect((await postJson(`${url}/reset`, {}, s.token)).status).toBe(200);
    expect(
      (await postJson(`${url}/tools/boom`, { arguments: {} }, s.token)).status
    ).toBe(200);
    const res = await fetch(`${url}/events?after=0`, {
      headers: { authorization: `Bearer ${s.token}` }
    });
    const { events } = (await res.json()) as {
      events: { type: string; exception?: { stack?: string } }[];
    };
    const stack = events.find((e) => e.type === "tool.finished")?.exception
      ?.stack;
    expect(stack).toMatch(/^Error: tool kaboom\n/);
    // The first frame is the author's line, not the bundle's.
    const first = stack!.split("\n")[1]!;
    expect(first).toContain(`${file}:12:`);
    expect(stack).not.toContain(".wrangler/tmp");
  });

  it("in a hook_failed answer name the author's file and line", async () => {
    const s = await session({ resetThrows: true });
    const url = `${base}/v1/sessions/${s.session_id}`;
    const res = await postJson<{
      error: { code: string; details: { stack?: string } };
    }>(`${url}/reset`, {}, s.token);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe("hook_failed");
    const stack = res.body.error.details.stack!;
    expect(stack).toMatch(/^RangeError: reset kaboom\n/);
    expect(stack.split("\n")[1]).toContain(`${file}:17:`);
    expect(stack).not.toContain(".wrangler/tmp");
  });
});
