// The author's commands as a user meets them: the packed tarball, a fresh
// folder under the OS's temp folder (outside this repository, so nothing
// resolves to its sources), `roost-edge init`, `npm install`, `npm run dev`
// (roost-edge dev) answering real HTTP, a definition error waited out, the
// scaffold's own `npm test`, a typecheck, and `wrangler deploy --dry-run`.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
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
import { testPort } from "../node/helpers/test-port";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;
const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const quiet = { ...process.env, WRANGLER_SEND_METRICS: "false" };

let work = "";
let tarball = "";
let project = "";
let dev: ChildProcess | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "roost-author-"));
  ({ tarball } = await packPackage(work, { inspector: "if-missing" }));
  // The command, installed as npx would: the tarball in a folder of its own.
  const tool = join(work, "tool");
  mkdirSync(tool);
  writeFileSync(join(tool, "package.json"), '{"private":true}');
  await installInto(tool, [tarball]);
}, 600_000);

afterAll(async () => {
  // Still running when a test failed early: stop wrangler and workerd too.
  if (
    dev?.pid !== undefined &&
    dev.exitCode === null &&
    dev.signalCode === null
  )
    process.kill(-dev.pid, "SIGTERM");
  rmSync(work, { recursive: true, force: true });
});

const roostEdge = (args: string[], cwd: string) =>
  run(join(work, "tool", "node_modules", ".bin", "roost-edge"), args, {
    cwd,
    env: quiet
  });

describe("an author's project from the packed package", () => {
  it("init scaffolds a project pinned to this version and to what Roost is tested with, and prints the next steps", async () => {
    const { stdout } = await roostEdge(["init", "my-env"], work);
    project = join(work, "my-env");
    for (const step of [
      "cd my-env",
      "npm install",
      "npm run dev",
      "npm test",
      "npx wrangler deploy"
    ])
      expect(stdout).toContain(step);
    const manifest = JSON.parse(
      readFileSync(join(project, "package.json"), "utf8")
    );
    expect(manifest.name).toBe("my-env");
    expect(manifest.dependencies).toEqual({
      "roost-edge": `^${own.version}`,
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
    const failed = await roostEdge(["init", "my-env"], work).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain("my-env is not empty");
    expect(readFileSync(join(project, "src", "index.ts"), "utf8")).toBe(
      "// mine\n"
    );
    writeFileSync(join(project, "src", "index.ts"), before);
  });

  it("installs, and dev serves the project's environments with the inspector until the definition error is fixed", async () => {
    // The tarball stands in for the registry's roost-edge.
    const manifest = JSON.parse(
      readFileSync(join(project, "package.json"), "utf8")
    );
    manifest.dependencies["roost-edge"] = `file:${tarball}`;
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify(manifest, null, 2)
    );
    await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund"],
      {
        cwd: project
      }
    );

    const port = await testPort();
    // What follows the second -- is wrangler dev's: its debugger's port.
    const debuggerPort = ["--", "--inspector-port", String(await testPort())];
    dev = spawn(
      "npm",
      ["run", "dev", "--", "--port", String(port), ...debuggerPort],
      {
        cwd: project,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        env: quiet
      }
    );
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const seen = (d: Buffer) => {
        output += String(d);
        if (output.includes("Next, in a second terminal")) resolve();
      };
      dev!.stdout!.on("data", seen);
      dev!.stderr!.on("data", seen);
      dev!.once("exit", () => reject(new Error(`exited:\n${output}`)));
    });
    expect(output).toContain("Roost development mode (ROOST_DEV=1)");
    expect(output).toContain("Serving the worker src/worker.ts");
    expect(output).toContain("Environments: lock");
    const base = `http://127.0.0.1:${port}`;
    const inspector = await fetch(`${base}/`);
    expect(await inspector.text()).toContain("Roost inspector");

    // A session over HTTP: create, reset, one step.
    const post = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(`${base}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(token ? { authorization: `Bearer ${token}` } : {})
        },
        body: JSON.stringify(body)
      });
      return {
        status: res.status,
        body: (await res.json()) as Record<string, unknown>
      };
    };
    const created = await post("/v1/sessions", {
      environment: "lock",
      task: { seed: 7 }
    });
    expect(created.status).toBe(201);
    const { session_id: id, token } = created.body as {
      session_id: string;
      token: string;
    };
    expect((await post(`/v1/sessions/${id}/reset`, {}, token)).status).toBe(
      200
    );
    const step = await post(
      `/v1/sessions/${id}/step`,
      {
        action: {
          tool_calls: [
            {
              id: "c1",
              function: { name: "try_code", arguments: { code: "12345" } }
            }
          ]
        }
      },
      token
    );
    expect(step.status).toBe(200);
    // The wrong length: a tool error the model reads, no try.
    expect(step.body).toMatchObject({
      done: false,
      observations: [
        { is_error: true, content: expect.stringContaining("4 digits") }
      ]
    });

    // A definition error: the server stays up and says what to fix.
    const source = join(project, "src", "index.ts");
    const good = readFileSync(source, "utf8");
    writeFileSync(source, good.replace('name: "lock"', 'name: "Bad Name!"'));
    const environments = async () => {
      const res = await fetch(`${base}/v1/environments`);
      return {
        status: res.status,
        body: (await res.json()) as {
          error?: { code: string; message: string };
        }
      };
    };
    let broken = await environments();
    while (broken.status === 200) {
      await new Promise((r) => setTimeout(r, 250));
      broken = await environments();
    }
    expect(broken.status).toBe(503);
    expect(broken.body.error?.code).toBe("unavailable");
    expect(broken.body.error?.message).toContain(
      "src/worker.ts (or a module it imports) failed to load"
    );
    expect(broken.body.error?.message).toContain('"Bad Name!"');
    expect(dev.exitCode).toBeNull();
    // The log's stack leads to the line, unminified.
    expect(output).toMatch(/src\/index\.ts:\d+:\d+/);

    writeFileSync(source, good);
    let fixed = await environments();
    while (fixed.status !== 200) {
      await new Promise((r) => setTimeout(r, 250));
      fixed = await environments();
    }
    const work = join(project, ".roost", String(port));
    expect(existsSync(work)).toBe(true);
    await new Promise<void>((resolve) => {
      dev!.once("exit", () => resolve());
      process.kill(-dev!.pid!, "SIGINT");
    });
    expect(existsSync(work)).toBe(false);
  });

  it("passes its own tests and typecheck in plain Node", async () => {
    const { stdout } = await run("npm", ["test"], {
      cwd: project,
      env: { ...quiet, NO_COLOR: "1", FORCE_COLOR: "0" }
    });
    expect(stdout).toMatch(/Tests\s+2 passed/);
    // `npm run check` is `roost-edge check` from the installed package:
    // the project's tsconfig, with the error wrangler would not report.
    const checked = await run("npm", ["run", "--silent", "check"], {
      cwd: project,
      env: { ...quiet, NO_COLOR: "1" }
    });
    expect(checked.stdout).toMatch(/^Checked \d+ files: no type errors\.$/m);
    const extra = join(project, "src", "extra.ts");
    writeFileSync(
      extra,
      "const codes = [1, 2];\nexport const first = (i: number) => codes[i].toFixed(0);\n"
    );
    const refused = await run("npm", ["run", "--silent", "check"], {
      cwd: project,
      env: { ...quiet, NO_COLOR: "1" }
    }).catch((e: { code: number; stdout: string }) => e);
    rmSync(extra);
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stdout: string }).stdout).toMatch(
      /src\/extra\.ts\(2,37\): error TS2532/
    );
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
