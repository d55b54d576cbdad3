// The author's commands as a user meets them: the packed tarball, a fresh
// folder under the OS's temp folder (outside this repository, so nothing
// resolves to its sources), `roost-edge init` from the tarball's install,
// `npm install` of what init wrote (no registry has this roost-edge),
// `npm run validate` and a rollout with a TypeScript policy in plain Node,
// `npm run dev` (roost-edge dev) waiting out a file that does not build and
// a definition error, answering real HTTP, and its sessions back after a
// restart; the scaffold's own `npm test`, a typecheck, and
// `wrangler deploy --dry-run`.
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installedVersion as installed,
  installInto,
  packPackage
} from "../node/helpers/packed";
import { requests, startDev, stopAll } from "./dev-server";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;
const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const quiet = { ...process.env, WRANGLER_SEND_METRICS: "false" };
const plain = { ...quiet, NO_COLOR: "1", FORCE_COLOR: "0" };

let work = "";
let tarball = "";
let project = "";
/** The session the first server made, which the second must still have. */
let kept: { id: string; token: string } | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "roost-author-"));
  ({ tarball } = await packPackage(work, { inspector: "if-missing" }));
  // The command, installed as npx would: the tarball in a folder of its own.
  const tool = join(work, "tool");
  mkdirSync(tool);
  writeFileSync(join(tool, "package.json"), '{"private":true}');
  await installInto(tool, [tarball]);
}, 600_000);

afterAll(() => {
  // Still running when a test failed early: stop wrangler and workerd too.
  stopAll();
  rmSync(work, { recursive: true, force: true });
});

const roostEdge = (args: string[], cwd: string) =>
  run(join(work, "tool", "node_modules", ".bin", "roost-edge"), args, {
    cwd,
    env: plain
  });

/** A command's exit code and output, failed or not. */
const outcome = (ran: Promise<{ stdout: string; stderr: string }>) =>
  ran.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e
  );

describe("an author's project from the packed package", () => {
  it("init scaffolds a project pinned to the very tarball its command came from and to what Roost is tested with, and prints the next steps", async () => {
    const { stdout } = await roostEdge(["init", "my-env"], work);
    project = join(work, "my-env");
    for (const step of [
      "cd my-env",
      "npm install",
      "npm run dev",
      "npm test",
      "npm run validate",
      "npx wrangler deploy"
    ])
      expect(stdout).toContain(step);
    const vendored = `vendor/roost-edge-${own.version}.tgz`;
    expect(stdout).toContain(
      `roost-edge is pinned to ${own.version}: ${vendored}, a copy of the tarball this command came from (${tarball}).`
    );
    expect(readFileSync(join(project, vendored))).toEqual(
      readFileSync(tarball)
    );
    const manifest = JSON.parse(
      readFileSync(join(project, "package.json"), "utf8")
    );
    expect(manifest.name).toBe("my-env");
    expect(manifest.dependencies).toEqual({
      "roost-edge": `file:${vendored}`,
      zod: own.dependencies.zod
    });
    expect(manifest.devDependencies).toEqual({
      "@cloudflare/workers-types": installed("@cloudflare/workers-types"),
      typescript: installed("typescript"),
      vitest: installed("vitest"),
      wrangler: installed("wrangler")
    });
    expect(manifest.scripts).toMatchObject({
      dev: "roost-edge dev",
      check: "roost-edge check",
      validate: "roost-edge validate src/index.ts",
      deploy: "wrangler deploy"
    });
    const toml = readFileSync(join(project, "wrangler.toml"), "utf8");
    expect(toml).toContain('main = "src/worker.ts"');
    expect(toml).toContain('zod = "roost-edge/zod-lean"');
    for (const file of [
      "tsconfig.json",
      "src/index.ts",
      "src/worker.ts",
      "test/index.test.ts",
      "README.md",
      ".gitignore"
    ])
      expect(existsSync(join(project, file))).toBe(true);
  });

  it("init refuses a folder with files in it and changes nothing", async () => {
    const before = readFileSync(join(project, "src", "index.ts"), "utf8");
    writeFileSync(join(project, "src", "index.ts"), "// mine\n");
    const failed = await outcome(roostEdge(["init", "my-env"], work));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("my-env is not empty");
    expect(readFileSync(join(project, "src", "index.ts"), "utf8")).toBe(
      "// mine\n"
    );
    writeFileSync(join(project, "src", "index.ts"), before);
  });

  it("installs as init wrote it, and validate passes on its TypeScript environment in plain Node", async () => {
    await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund"],
      { cwd: project }
    );
    const installedRoost = JSON.parse(
      readFileSync(
        join(project, "node_modules", "roost-edge", "package.json"),
        "utf8"
      )
    );
    expect(installedRoost.version).toBe(own.version);

    // Node 20 cannot import a .ts file; the command reads it with the
    // esbuild the project's wrangler brought.
    const validated = await outcome(
      run("npm", ["run", "--silent", "validate"], { cwd: project, env: plain })
    );
    expect(validated.stdout).toMatch(/^ {2}determinism +PASS/m);
    expect(validated.stdout).toMatch(/^ {2}isolation +PASS/m);
    expect(validated.stdout).toMatch(/^ {2}oracle +PASS 1\.000/m);
    expect(validated.stdout).toMatch(/^ {2}passed$/m);
    expect(validated.code).toBe(0);

    // One that does not compile says where and what, with exit code 2.
    writeFileSync(join(project, "src", "broken.ts"), "export const x = ;\n");
    const refused = await outcome(
      roostEdge(["validate", "src/broken.ts"], project)
    );
    rmSync(join(project, "src", "broken.ts"));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '"src/broken.ts" is not a module that loads'
    );
    expect(refused.stderr).toContain("src/broken.ts:1:17");
    // No compiled copy left beside the sources.
    expect(readdirSync(join(project, "src")).sort()).toEqual([
      "index.ts",
      "worker.ts"
    ]);
  });

  it("dev prints a file that does not build with its line, starts once it is fixed, and serves the inspector and sessions until a definition error is fixed", async () => {
    const source = join(project, "src", "index.ts");
    const good = readFileSync(source, "utf8");
    // A package that is not installed, then a syntax error: each printed
    // with its file and line, and wrangler not started.
    writeFileSync(source, `import pad from "left-pad";\n${good}`);
    const dev = await startDev(project, quiet);
    await dev.until("does not build");
    expect(dev.output()).toContain('Could not resolve "left-pad"');
    expect(dev.output()).toContain("src/index.ts:1:16");
    expect(dev.output()).toContain(
      "Is left-pad installed? npm install left-pad"
    );
    const before = dev.output().length;
    writeFileSync(source, good.replace("maxSteps: 20,", "maxSteps: 20,,"));
    await dev.until("does not build", before);
    expect(dev.output().slice(before)).toMatch(
      /Expected identifier but found ","\s+src\/index\.ts:\d+:\d+/
    );
    expect(dev.output()).not.toContain("Starting wrangler dev");
    writeFileSync(source, good);
    await dev.until("Next, in a second terminal");

    const output = dev.output();
    expect(output).toContain("Roost development mode (ROOST_DEV=1)");
    expect(output).toContain("Serving the worker src/worker.ts");
    expect(output).toContain(
      "Sessions: kept in .roost/state; they outlive this server"
    );
    expect(output).toContain("Roost: it builds now.");
    expect(output).toContain("Environments: lock");
    const inspector = await fetch(`${dev.base}/`);
    expect(await inspector.text()).toContain("Roost inspector");

    // A session over HTTP: create, reset, a tool error, a try.
    const { get, post } = requests(dev.base);
    const created = await post("/v1/sessions", {
      environment: "lock",
      task: { seed: 7 }
    });
    expect(created.status).toBe(201);
    const { session_id: id, token } = created.body as {
      session_id: string;
      token: string;
    };
    const reset = await post(`/v1/sessions/${id}/reset`, {}, token);
    expect(reset.body).toMatchObject({
      observations: [{ content: expect.stringContaining("Lock 7 has") }]
    });
    const tryCode = (code: string) =>
      post(
        `/v1/sessions/${id}/step`,
        {
          action: {
            tool_calls: [
              { id: "c1", function: { name: "try_code", arguments: { code } } }
            ]
          }
        },
        token
      );
    // The wrong length: a tool error the model reads, no try.
    expect((await tryCode("12345")).body).toMatchObject({
      done: false,
      observations: [
        { is_error: true, content: expect.stringContaining("4 digits") }
      ]
    });
    expect((await tryCode("0000")).status).toBe(200);
    kept = { id, token };

    // A definition error: the server stays up and says what to fix.
    writeFileSync(source, good.replace('name: "lock"', 'name: "Bad Name!"'));
    let broken = await get("/v1/environments");
    while (broken.status === 200) {
      await new Promise((r) => setTimeout(r, 250));
      broken = await get("/v1/environments");
    }
    expect(broken.status).toBe(503);
    expect(broken.body.error?.code).toBe("unavailable");
    expect(broken.body.error?.message).toContain(
      "src/worker.ts (or a module it imports) failed to load"
    );
    expect(broken.body.error?.message).toContain('"Bad Name!"');
    expect(dev.child.exitCode).toBeNull();
    // The log's stack leads to the line, unminified.
    expect(dev.output()).toMatch(/src\/index\.ts:\d+:\d+/);
    writeFileSync(source, good);
    while ((await get("/v1/environments")).status !== 200)
      await new Promise((r) => setTimeout(r, 250));

    // A rollout whose policy is TypeScript importing the project's own
    // module: it reads which lock from the first observation.
    writeFileSync(
      join(project, "policy.ts"),
      [
        'import { toolCalls } from "roost-edge/core";',
        'import { codeFor } from "./src/index";',
        "",
        "export const policy = (observations: { content?: unknown }[]) => {",
        "  const seen = observations.map((m) => String(m.content)).join(' ');",
        "  const seed = Number(/Lock (\\d+)/.exec(seen)?.[1] ?? 0);",
        '  return toolCalls({ name: "try_code", arguments: { code: codeFor(seed, 4) } });',
        "};",
        ""
      ].join("\n")
    );
    const rolled = await roostEdge(
      [
        "rollout",
        "--url",
        dev.base,
        "--env",
        "lock",
        "--episodes",
        "3",
        "--policy",
        "policy.ts"
      ],
      project
    );
    const returns = rolled.stdout
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { return: number }).return);
    expect(returns).toEqual([1, 1, 1]);

    const folder = join(project, ".roost", String(dev.port));
    expect(existsSync(folder)).toBe(true);
    await dev.stop();
    // The generated files go; the sessions stay.
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(join(project, ".roost", "state"))).toBe(true);
  });

  it("dev started again has the sessions of the last one, and --no-persist starts with none", async () => {
    const { id, token } = kept!;
    const dev = await startDev(project, quiet);
    await dev.until("Next, in a second terminal");
    const { get } = requests(dev.base);
    expect((await get(`/v1/sessions/${id}/state`, token)).body).toEqual({
      state: { tries: ["0000"], best: expect.any(Number) }
    });
    expect((await get(`/v1/sessions/${id}`, token)).body).toMatchObject({
      episode: 1,
      done: false
    });
    await dev.stop();

    const fresh = await startDev(project, quiet, ["--no-persist"]);
    await fresh.until("Next, in a second terminal");
    expect(fresh.output()).toMatch(
      /Sessions: temporary, in \.roost\/\d+\/state, deleted when this server stops\./
    );
    expect(
      (await requests(fresh.base).get(`/v1/sessions/${id}/state`, token)).status
    ).toBe(404);
    await fresh.stop();
  });

  it("passes its own tests, validate included, and typecheck in plain Node", async () => {
    const { stdout } = await run("npm", ["test"], { cwd: project, env: plain });
    expect(stdout).toMatch(/Tests\s+3 passed/);
    // `npm run check` is `roost-edge check` from the installed package:
    // the project's tsconfig, with the error wrangler would not report.
    const checked = await run("npm", ["run", "--silent", "check"], {
      cwd: project,
      env: plain
    });
    expect(checked.stdout).toMatch(/^Checked \d+ files: no type errors\.$/m);
    const extra = join(project, "src", "extra.ts");
    writeFileSync(
      extra,
      "const codes = [1, 2];\nexport const first = (i: number) => codes[i].toFixed(0);\n"
    );
    const refused = await outcome(
      run("npm", ["run", "--silent", "check"], { cwd: project, env: plain })
    );
    rmSync(extra);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/src\/extra\.ts\(2,37\): error TS2532/);
  });

  it("builds for deployment, minified with source maps", async () => {
    await run("npx", ["wrangler", "deploy", "--dry-run", "--outdir", "out"], {
      cwd: project,
      env: quiet
    });
    const js = readFileSync(join(project, "out", "worker.js"), "utf8");
    expect(js).toMatch(/export\s*\{[^}]*\bSession\b/);
    // Minified: the environment's comments are gone, its strings kept.
    expect(js).toContain("Call try_code to open it.");
    expect(js).not.toContain("The hidden store: tools read and write it");
    const map = JSON.parse(
      readFileSync(join(project, "out", "worker.js.map"), "utf8")
    );
    expect(map.sources).toContain("../src/index.ts");
  });
});
