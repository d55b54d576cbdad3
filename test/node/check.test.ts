// `roost-edge check`: an author's environment file, outside the clone as an
// author keeps it, typechecked as Roost's own sources are. wrangler strips
// types without checking them, so this is the only place such an error shows.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../src/cli/args";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "roost-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run roost -- check …args` from the clone; answers exit code and output. */
const check = (args: string[], cwd = process.cwd()) =>
  run(
    join(process.cwd(), "node_modules", ".bin", "tsx"),
    [join(process.cwd(), "src", "cli", "main.ts"), "check", ...args],
    { cwd, env: { ...process.env, NO_COLOR: "1" } }
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr
    })
  );

const environment = (
  word: string
) => `import { defineEnvironment } from "roost-edge/core";
import { z } from "zod";

const words = ["alpha", "beta"];

export const pick = defineEnvironment({
  name: "pick",
  description: "Picks a word.",
  task: z.object({}).default({}),
  tools: (tool) => ({
    pick: tool({
      description: "The word at an index.",
      input: z.object({ index: z.number().int() }),
      run: ({ index }) => ${word}
    })
  }),
  reset: () => "Pick a word."
});
`;

describe("roost-edge check", () => {
  it("reports an unchecked index in a file outside the clone, with its line", async () => {
    const file = join(dir, "pick.ts");
    writeFileSync(file, environment("words[index].toUpperCase()"));
    const result = await check([file]);
    expect(result.code).toBe(1);
    // noUncheckedIndexedAccess, which Roost's own tsconfig sets: the
    // element may be undefined, and the run would throw at step time.
    expect(result.stdout).toMatch(/pick\.ts\(14,27\): error TS2532/);
    expect(result.stdout).toContain(
      "1 type error in 1 file and what they import."
    );
  }, 60_000);

  it("passes the fixed file: roost-edge/core and zod resolve from the clone", async () => {
    const file = join(dir, "fixed.ts");
    writeFileSync(file, environment('(words[index] ?? "none").toUpperCase()'));
    const result = await check([file]);
    expect(result.stdout).toBe("Checked 1 file: no type errors.\n");
    expect(result.code).toBe(0);
  }, 60_000);

  it("checks the project a tsconfig.json describes when given no files", async () => {
    const project = mkdtempSync(join(dir, "project-"));
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true }, files: ["a.ts"] })
    );
    writeFileSync(join(project, "a.ts"), "export const n: number = 'one';\n");
    const result = await check([], project);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/a\.ts\(1,14\): error TS2322/);
  }, 60_000);

  it("answers a missing file or a folder without a project with exit code 2", async () => {
    const missing = await check([join(dir, "nope.ts")]);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toContain("nope.ts: no such file");
    const empty = mkdtempSync(join(dir, "empty-"));
    const none = await check([], empty);
    expect(none).toMatchObject({ code: 2 });
    expect(none.stderr).toContain("No tsconfig.json here");
  }, 60_000);

  it("parses its files and refuses options it does not have", () => {
    expect(parseArgs(["check", "a.ts", "b.ts"], {})).toEqual({
      command: "check",
      files: ["a.ts", "b.ts"]
    });
    expect(() => parseArgs(["check", "--strict"], {})).toThrow(UsageError);
  });
});
