/** @module `roost-edge init <folder>`: a project of the author's own, ready to install, serve, test and deploy. */

import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { InitCommand } from "./author-args";
import { manifest, packageRoot } from "./package-root";
import { roostOrigin } from "./roost-origin";
import { pinRoost } from "./roost-pin";
import { ENVIRONMENT, ENVIRONMENT_TEST } from "./templates/environment";
import {
  GITIGNORE,
  packageJson,
  readme,
  type ScaffoldVersions,
  TSCONFIG,
  WORKER,
  wranglerToml
} from "./templates/project";

/** The scaffold's files by path, for a project called `name`. */
export const scaffold = (
  name: string,
  versions: ScaffoldVersions
): Record<string, string> => ({
  "package.json": packageJson(name, versions),
  "wrangler.toml": wranglerToml(name),
  "tsconfig.json": TSCONFIG,
  ".gitignore": GITIGNORE,
  "README.md": readme(name),
  "src/index.ts": ENVIRONMENT,
  "src/worker.ts": WORKER,
  "test/index.test.ts": ENVIRONMENT_TEST
});

/** Read from this package's manifest, so a scaffold never drifts from what Roost is tested with. */
export const scaffoldVersions = (): ScaffoldVersions => {
  const own = manifest();
  const tested = (name: string) => {
    const version = own.devDependencies?.[name] ?? own.dependencies[name];
    if (!version) throw new Error(`roost-edge's manifest lists no ${name}.`);
    return version;
  };
  return {
    roost: own.version,
    zod: tested("zod"),
    wrangler: tested("wrangler"),
    typescript: tested("typescript"),
    workersTypes: tested("@cloudflare/workers-types"),
    vitest: tested("vitest")
  };
};

/** A package and worker name from a folder's: lowercase letters, digits and dashes. */
export const projectName = (dir: string): string =>
  basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "") || "my-env";

/** Writes the scaffold; returns the exit code. Never writes into a folder with files in it. */
export const runInit = (command: InitCommand, cwd: string): number => {
  const dir = resolve(cwd, command.dir);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    process.stderr.write(
      `${command.dir} is not empty; roost-edge init writes only into a new or empty folder. Pick another name.\n`
    );
    return 1;
  }
  const name = projectName(dir);
  mkdirSync(dir, { recursive: true });
  const versions = scaffoldVersions();
  const root = packageRoot();
  const pin = pinRoost(
    roostOrigin(root, versions.roost),
    dir,
    versions.roost,
    root
  );
  for (const [file, text] of Object.entries(
    scaffold(name, { ...versions, roost: pin.spec })
  )) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  // Where the user is, unless that climbs out of it: then as they typed it.
  const near = relative(cwd, dir) || ".";
  const shown = near.startsWith("..") ? command.dir : near;
  process.stdout.write(
    [
      `Created ${shown}: the environment "lock" in src/index.ts, served by src/worker.ts.`,
      pin.said,
      "",
      "Next:",
      ...(shown === "."
        ? []
        : [`  cd ${shown.includes(" ") ? JSON.stringify(shown) : shown}`]),
      "  npm install",
      "  npm run dev          # http://127.0.0.1:8787, the inspector at /",
      "  npm test             # the environment in plain Node",
      "  npm run validate     # roost-edge validate: replays, oracle, leaks",
      "  npm run check        # typechecks your files",
      "  npx wrangler deploy  # after: npx wrangler secret put ROOST_SECRETS",
      ""
    ].join("\n")
  );
  return 0;
};
