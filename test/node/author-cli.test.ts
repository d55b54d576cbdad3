// The author's commands' parts that need no server: their command lines,
// and the wrangler config a dev server derives from the project's own.

import { execFile } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../src/cli/args";
import { devConfig } from "../../src/cli/dev-config";
import { roostOrigin } from "../../src/cli/roost-origin";
import { pinRoost } from "../../src/cli/roost-pin";
import { wranglerToml } from "../../src/cli/templates/project";

describe("roost-edge dev and init on the command line", () => {
  it("dev takes files, --port, --ip, PORT, and hands what follows -- to wrangler", () => {
    expect(parseArgs(["dev"], {})).toEqual({
      command: "dev",
      files: [],
      port: 8787,
      ip: "127.0.0.1",
      wranglerArgs: []
    });
    expect(
      parseArgs(
        [
          "dev",
          "a.ts",
          "--port=9000",
          "b.ts",
          "--ip",
          "0.0.0.0",
          "--",
          "--log-level",
          "warn"
        ],
        { PORT: "7000" }
      )
    ).toEqual({
      command: "dev",
      files: ["a.ts", "b.ts"],
      port: 9000,
      ip: "0.0.0.0",
      wranglerArgs: ["--log-level", "warn"]
    });
    expect(parseArgs(["dev"], { PORT: "7000" })).toMatchObject({ port: 7000 });
  });

  it("dev refuses a bad port and an option of wrangler's before --, saying where it goes", () => {
    expect(() => parseArgs(["dev", "--port", "http"], {})).toThrow(
      /--port must be a port from 1 to 65535, not "http"/
    );
    expect(() => parseArgs(["dev", "--port", "70000"], {})).toThrow(UsageError);
    expect(() => parseArgs(["dev", "--port"], {})).toThrow(
      /--port needs a value/
    );
    expect(() => parseArgs(["dev", "--log-level", "warn"], {})).toThrow(
      "Options for wrangler dev go after --: roost-edge dev -- --log-level"
    );
  });

  it("dev keeps sessions in .roost/state unless told a folder or none, and refuses both at once", () => {
    expect(parseArgs(["dev"], {})).not.toHaveProperty("persist");
    expect(parseArgs(["dev", "--persist-to", "sessions"], {})).toMatchObject({
      persist: "sessions"
    });
    expect(parseArgs(["dev", "--no-persist"], {})).toMatchObject({
      persist: false
    });
    expect(() =>
      parseArgs(["dev", "--no-persist", "--persist-to=x"], {})
    ).toThrow(/give one/);
    // wrangler's own flag would point its state elsewhere, unannounced.
    expect(() => parseArgs(["dev", "--", "--persist-to", "x"], {})).toThrow(
      "Give --persist-to before --"
    );
  });

  it("init takes exactly one folder", () => {
    expect(parseArgs(["init", "my-env"], {})).toEqual({
      command: "init",
      dir: "my-env"
    });
    expect(() => parseArgs(["init"], {})).toThrow(/roost-edge init my-env/);
    expect(() => parseArgs(["init", "a", "b"], {})).toThrow(UsageError);
    expect(() => parseArgs(["init", "a", "--force"], {})).toThrow(
      /Unknown option --force/
    );
  });
});

describe("the dev server's wrangler config", () => {
  it("keeps the scaffold's bindings and alias, serves the generated worker unminified, with the inspector", () => {
    const text = devConfig(wranglerToml("my-env"), {
      baseDir: "/home/me/my-env",
      main: "/home/me/my-env/.roost/8787/worker.ts",
      assets: "/lib/roost-edge/dist/inspector"
    });
    expect(text).toContain('main = "/home/me/my-env/.roost/8787/worker.ts"');
    expect(text).toMatch(/^minify = false$/m);
    expect(text).not.toMatch(/^minify = true$/m);
    // A top-level key after a table would belong to the table.
    expect(text.indexOf("minify = false")).toBeLessThan(text.indexOf("["));
    expect(text).toContain('zod = "roost-edge/zod-lean"');
    expect(text).toContain('class_name = "Session"');
    expect(text).toContain('new_sqlite_classes = ["Session"]');
    expect(text).toMatch(
      /\[assets\]\n"directory" = "\/lib\/roost-edge\/dist\/inspector"/
    );
  });

  it("makes the project's relative paths absolute and adds aliases to its own [alias] table", () => {
    const text = devConfig(
      [
        'name = "roost"',
        'main = "examples/worker.ts"',
        "minify = true",
        "[alias]",
        'zod = "./src/zod-lean.ts"',
        '"roost-edge" = "./elsewhere.ts"',
        "[assets]",
        'directory = "./dist/inspector"',
        'binding = "ASSETS"'
      ].join("\n"),
      {
        baseDir: "/clone",
        main: "/clone/.roost/9000/worker.ts",
        assets: "/clone/dist/inspector",
        aliases: { "roost-edge": "/clone/src/index.ts" }
      }
    );
    expect(text).toContain('zod = "/clone/src/zod-lean.ts"');
    expect(text.match(/^\[alias\]$/gm)).toHaveLength(1);
    expect(text.match(/^\[assets\]$/gm)).toHaveLength(1);
    expect(text).toContain('"roost-edge" = "/clone/src/index.ts"');
    expect(text).not.toContain("elsewhere.ts");
    expect(text).toContain('binding = "ASSETS"');
    expect(text).not.toContain('directory = "./dist/inspector"');
    expect(text).not.toMatch(/^minify = true$/m);
  });

  it("gives the generated worker a LOADER binding for code tools unless the project declares a Worker Loader", () => {
    const options = {
      baseDir: "/home/me/my-env",
      main: "/home/me/my-env/.roost/8787/worker.ts",
      assets: "/lib/roost-edge/dist/inspector"
    };
    // The scaffold has it commented out: the dev server adds it.
    const scaffold = devConfig(wranglerToml("my-env"), options);
    expect(scaffold.match(/^\[\[worker_loaders\]\]$/gm)).toHaveLength(1);
    expect(scaffold).toMatch(/^\[\[worker_loaders\]\]\nbinding = "LOADER"$/m);
    // A project's own binding (named for createRoost({ loader })) is kept alone.
    for (const own of [
      '[[worker_loaders]]\nbinding = "CODE"',
      'worker_loaders = [{ binding = "CODE" }]'
    ]) {
      const text = devConfig(`name = "x"\nmain = "w.ts"\n${own}`, options);
      expect(text).toContain('binding = "CODE"');
      expect(text).not.toContain('"LOADER"');
    }
  });

  it("binds the classes the task statistics and OAuth layers keep, with their migration, unless the project binds them", () => {
    const options = {
      baseDir: "/home/me/my-env",
      main: "/home/me/my-env/.roost/8787/worker.ts",
      assets: "/lib/roost-edge/dist/inspector"
    };
    const scaffold = devConfig(wranglerToml("my-env"), options);
    expect(scaffold).toContain(
      '[[durable_objects.bindings]]\nname = "TASK_STATS"\nclass_name = "TaskStats"'
    );
    expect(scaffold).toContain(
      '[[durable_objects.bindings]]\nname = "OAUTH_LEDGER"\nclass_name = "OAuthLedger"'
    );
    expect(scaffold).toContain(
      'tag = "roost-dev-layers"\nnew_sqlite_classes = ["TaskStats", "OAuthLedger"]'
    );
    // The clone's own config binds both: nothing is added.
    const clone = readFileSync(
      new URL("../../wrangler.toml", import.meta.url),
      "utf8"
    );
    const text = devConfig(clone, options);
    expect(text.match(/name = "TASK_STATS"/g)).toHaveLength(1);
    expect(text).not.toContain("roost-dev-layers");
    // One bound, the other added alone.
    const one = devConfig(
      `name = "x"\nmain = "w.ts"\n[[durable_objects.bindings]]\nname = "TASK_STATS"\nclass_name = "TaskStats"`,
      options
    );
    expect(one).toContain('new_sqlite_classes = ["OAuthLedger"]');
  });
});

describe("init pins the roost-edge it was installed from", () => {
  const version = "0.1.0";
  const made: string[] = [];
  const temp = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  /** A project whose node_modules holds roost-edge, npm's record of it as `resolved` says. */
  const installed = (resolved?: string, where = "node_modules") => {
    const project = temp("roost-origin-");
    const root = join(project, "node_modules", "roost-edge");
    mkdirSync(root, { recursive: true });
    if (resolved !== undefined)
      writeFileSync(
        join(
          project,
          where === "node_modules"
            ? "node_modules/.package-lock.json"
            : "package-lock.json"
        ),
        JSON.stringify({
          packages: { "node_modules/roost-edge": { version, resolved } }
        })
      );
    return { project, root };
  };

  it("reads npm's record: the registry's tarball, another address, a tarball that is still there", () => {
    const registry = installed(
      "https://registry.npmjs.org/roost-edge/-/roost-edge-0.1.0.tgz"
    );
    expect(roostOrigin(registry.root, version)).toEqual({
      kind: "registry",
      version
    });
    const git = installed("git+ssh://git@github.com/me/roost.git#abc", "lock");
    expect(roostOrigin(git.root, version)).toEqual({
      kind: "url",
      url: "git+ssh://git@github.com/me/roost.git#abc"
    });
    // npx's and `npm install <tarball>`'s record: relative to the project.
    const tarball = installed("file:../roost-edge-0.1.0.tgz");
    writeFileSync(join(tarball.project, "..", "roost-edge-0.1.0.tgz"), "");
    expect(roostOrigin(tarball.root, version)).toEqual({
      kind: "tarball",
      path: join(tarball.project, "..", "roost-edge-0.1.0.tgz")
    });
    rmSync(join(tarball.project, "..", "roost-edge-0.1.0.tgz"));
    // Deleted since: nothing left to copy.
    expect(roostOrigin(tarball.root, version)).toEqual({ kind: "unknown" });
    // A global install keeps no lockfile.
    expect(roostOrigin(installed().root, version)).toEqual({ kind: "unknown" });
    // Outside any node_modules: a clone, or a folder npm linked.
    const clone = temp("roost-clone-");
    expect(roostOrigin(clone, version)).toEqual({
      kind: "folder",
      path: clone
    });
  });

  it("pins the version, copies a tarball into vendor/, links a folder by its relative path, and says which", () => {
    const dir = temp("roost-pin-");
    expect(pinRoost({ kind: "registry", version }, dir, version, "")).toEqual({
      spec: "0.1.0",
      said: "roost-edge is pinned to 0.1.0 exactly, from the npm registry."
    });
    const tarball = join(dir, "..", `downloaded-${Date.now()}.tgz`);
    writeFileSync(tarball, "the tarball");
    const copied = pinRoost(
      { kind: "tarball", path: tarball },
      dir,
      version,
      ""
    );
    rmSync(tarball);
    expect(copied.spec).toBe("file:vendor/roost-edge-0.1.0.tgz");
    expect(copied.said).toContain(
      `a copy of the tarball this command came from (${tarball})`
    );
    expect(
      readFileSync(join(dir, "vendor", "roost-edge-0.1.0.tgz"), "utf8")
    ).toBe("the tarball");
    const clone = join(dir, "..", "roost");
    expect(
      pinRoost({ kind: "folder", path: clone }, dir, version, "").spec
    ).toBe("file:../roost");
  });
});

describe("roost-edge dev where it cannot serve", () => {
  const main = new URL("../../src/cli/main.ts", import.meta.url).pathname;
  // From a folder outside the clone: tsx by its path, not its name.
  const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url)
    .href;
  const dev = (cwd: string) =>
    promisify(execFile)(process.execPath, ["--import", tsx, main, "dev"], {
      cwd
    }).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e
    );

  it("says how to get a project, or how to install wrangler, and exits 1", async () => {
    const empty = mkdtempSync(join(tmpdir(), "roost-dev-"));
    try {
      const none = await dev(empty);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("No wrangler.toml here or above");
      expect(none.stderr).toContain("roost-edge init my-env");
      writeFileSync(join(empty, "wrangler.toml"), 'main = "src/worker.ts"\n');
      const bare = await dev(empty);
      expect(bare.code).toBe(1);
      expect(bare.stderr).toContain("wrangler is not installed");
      expect(bare.stderr).toContain("npm install --save-dev wrangler@");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);
});
