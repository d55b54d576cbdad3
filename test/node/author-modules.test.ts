// An author's TypeScript as the commands read it, with the esbuild the
// project has: a module imported though Node 20 cannot (validate's,
// --policy's), and the dev server's gate, which prints a file's error and
// starts the server once it builds. The packed package's run of both, in a
// project made by init, is test/author.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args";
import { aliasesOf, gateOnBuild } from "../../src/cli/dev-build";
import { importTypeScript } from "../../src/cli/import-module";

const root = new URL("../..", import.meta.url).pathname;

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A folder of files by path. */
const project = (files: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "roost-modules-"));
  made.push(dir);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
};

describe("a TypeScript module for validate, --policy and --rubric", () => {
  it("is compiled with its extensionless imports and its types, imported, and leaves no file behind", async () => {
    const dir = project({
      "src/moves.ts": `export enum Move { Up = "up" }\nexport const first = (n: number): Move => (n > 0 ? Move.Up : Move.Up);\n`,
      "policy.ts": `import { first, Move } from "./src/moves";\ninterface Seen { content: string }\nexport const policy = (seen: Seen[]) => ({ move: first(seen.length), up: Move.Up });\n`
    });
    const loaded = await importTypeScript(join(dir, "policy.ts"), "no");
    expect((loaded.policy as (s: unknown[]) => unknown)([{}])).toEqual({
      move: "up",
      up: "up"
    });
    expect(readdirSync(dir).sort()).toEqual(["policy.ts", "src"]);
  });

  it("that does not compile is a usage error naming the file, the line and what is wrong", async () => {
    const dir = project({ "env.ts": "export const x: number = ;\n" });
    const error = await importTypeScript(
      join(dir, "env.ts"),
      '"env.ts" is not a module that loads'
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(
      /^"env\.ts" is not a module that loads:\n/
    );
    expect((error as Error).message).toContain('Unexpected ";"');
    expect((error as Error).message).toMatch(/env\.ts:1:25/);
    expect(readdirSync(dir)).toEqual(["env.ts"]);
  });
});

describe("dev's gate: the worker builds before wrangler starts", () => {
  const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");

  it("prints the author's error with its file and line, watches, and opens once the fix is saved", async () => {
    const dir = project({
      "package.json": '{"type":"module"}',
      "src/index.ts":
        'import pad from "left-pad-nowhere";\nexport const n = pad;\n',
      "worker.ts":
        'import { n } from "./src/index";\nexport default { fetch: () => new Response(String(n)) };\n'
    });
    let said = "";
    const gate = await gateOnBuild({
      wrangler,
      entry: join(dir, "worker.ts"),
      config: 'name = "x"\n',
      root: dir,
      cwd: dir,
      label: "worker.ts (or a module it imports)",
      log: (text) => {
        said += text;
      },
      color: false
    });
    expect(gate).toBeDefined();
    const until = async (text: string) => {
      while (!said.includes(text)) await new Promise((r) => setTimeout(r, 50));
    };
    await until("does not build");
    expect(said).toContain('Could not resolve "left-pad-nowhere"');
    expect(said).toContain("src/index.ts:1:16");
    expect(said).toContain(
      "Is left-pad-nowhere installed? npm install left-pad-nowhere"
    );
    // esbuild's own advice would only move the failure to run time.
    expect(said).not.toContain("as external");
    expect(said).toContain(
      "Roost: worker.ts (or a module it imports) does not build, so the server cannot start yet."
    );

    // Still broken, differently: said again.
    said = "";
    writeFileSync(join(dir, "src", "index.ts"), "export const n = ;\n");
    await until("does not build");
    expect(said).toContain("src/index.ts:1:17");

    writeFileSync(join(dir, "src", "index.ts"), "export const n = 1;\n");
    expect(await gate!.built).toBe(true);
    expect(said).toContain("Roost: it builds now.");
  });

  it("passes what workerd and wrangler's rules provide, and the config's aliases", async () => {
    const dir = project({
      "package.json": '{"type":"module"}',
      "node_modules/real-zod/package.json":
        '{"name":"real-zod","main":"index.js"}',
      "node_modules/real-zod/index.js": "export const z = 1;\n",
      "worker.ts": [
        'import { DurableObject } from "cloudflare:workers";',
        'import { Buffer } from "node:buffer";',
        'import words from "./words.txt";',
        'import { z } from "zod";',
        "export default { fetch: () => new Response(String([DurableObject, Buffer, words, z])) };"
      ].join("\n")
    });
    const config = 'name = "x"\n[alias]\nzod = "real-zod"\n';
    expect(aliasesOf(config)).toEqual({ zod: "real-zod" });
    let said = "";
    const gate = await gateOnBuild({
      wrangler,
      entry: join(dir, "worker.ts"),
      config,
      root: dir,
      cwd: dir,
      label: "worker.ts",
      log: (text) => {
        said += text;
      },
      color: false
    });
    expect(await gate!.built).toBe(true);
    expect(said).toBe("");
  });

  it("leaves a project that builds with its own command to wrangler", async () => {
    expect(
      await gateOnBuild({
        wrangler,
        entry: "/nowhere/worker.ts",
        config: 'name = "x"\n[build]\ncommand = "make"\n',
        root: "/nowhere",
        cwd: "/nowhere",
        label: "worker.ts",
        log: () => {},
        color: false
      })
    ).toBeUndefined();
  });
});
