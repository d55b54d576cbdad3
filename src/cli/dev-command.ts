/** @module `roost-edge dev` in an author's project: finds the project, its wrangler and the inspector, then runs the dev server. */

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import type { DevCommand } from "./author-args";
import { runDev } from "./dev";
import { scaffoldVersions } from "./init";
import { packageRoot } from "./package-root";
import { wranglerToml } from "./templates/project";

/** The nearest folder from `cwd` up that holds a wrangler.toml. */
const findProject = (cwd: string): string | undefined => {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "wrangler.toml"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
};

export const runDevCommand = async (
  command: DevCommand,
  cwd: string
): Promise<number> => {
  const files = command.files.map((file) => resolve(cwd, file));
  const project = findProject(cwd);
  if (project === undefined && files.length === 0) {
    process.stderr.write(
      "No wrangler.toml here or above. Run roost-edge dev in your project (roost-edge init my-env makes one), or name environment files: roost-edge dev my-env.ts\n"
    );
    return 1;
  }
  const root = project ?? cwd;
  // Bare files outside any project: the scaffold's config, without its main.
  const config = project
    ? readFileSync(join(project, "wrangler.toml"), "utf8")
    : wranglerToml("roost-dev").replace(/^main = .*\n/m, "");
  const wrangler = findWrangler(root);
  if (wrangler === undefined) {
    process.stderr.write(
      `wrangler is not installed in ${root}. Install it: npm install --save-dev wrangler@${scaffoldVersions().wrangler}\n`
    );
    return 1;
  }
  // The inspector ships in the package's dist/ (built by prepare in a clone).
  const assets = join(packageRoot(), "dist", "inspector");
  if (!existsSync(join(assets, "index.html"))) {
    process.stderr.write(
      `The inspector is missing from ${assets}; in a Roost clone, build it: npm run build:inspector\n`
    );
    return 1;
  }
  return runDev({
    root,
    config,
    files,
    // Kept by default, as wrangler dev keeps its local state.
    ...(command.persist === false
      ? {}
      : {
          persistTo:
            command.persist === undefined
              ? join(root, ".roost", "state")
              : resolve(cwd, command.persist)
        }),
    port: command.port,
    ip: command.ip,
    assets,
    wrangler,
    wranglerArgs: command.wranglerArgs,
    rollout:
      "npx roost-edge rollout --url <url> --env <env> --episodes 10 --out trajectories.jsonl",
    cwd
  });
};

/** wrangler's bin script as the project resolves it (a devDependency of the scaffold). */
const findWrangler = (root: string): string | undefined => {
  try {
    return createRequire(join(root, "package.json")).resolve(
      "wrangler/bin/wrangler.js"
    );
  } catch {
    return undefined;
  }
};
