/**
 * @module What a new project's package.json says for roost-edge: exactly
 * the package this command is, from wherever it came (roost-origin.ts).
 */

import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import type { RoostOrigin } from "./roost-origin";

export interface RoostPin {
  /** The dependency's spec in package.json. */
  spec: string;
  /** The sentence `init` prints about it. */
  said: string;
}

/** The folder a tarball is copied into, and committed with the project. */
const VENDOR = "vendor";

/**
 * The pin for a project in `dir` (created already). A tarball is copied
 * into the project's vendor/ (a download folder is cleaned, a project is
 * moved and cloned); with no source left to copy, the installed files are
 * packed there; a folder is linked, as `npm install ../roost` would.
 */
export const pinRoost = (
  origin: RoostOrigin,
  dir: string,
  version: string,
  installed: string
): RoostPin => {
  const vendored = `${VENDOR}/roost-edge-${version}.tgz`;
  const exact = `roost-edge is pinned to ${version}`;
  switch (origin.kind) {
    case "registry":
      return {
        spec: version,
        said: `${exact} exactly, from the npm registry.`
      };
    case "url":
      return {
        spec: origin.url,
        said: `${exact}: ${origin.url}, where this command came from.`
      };
    case "tarball":
      mkdirSync(join(dir, VENDOR), { recursive: true });
      copyFileSync(origin.path, join(dir, vendored));
      return {
        spec: `file:${vendored}`,
        said: `${exact}: ${vendored}, a copy of the tarball this command came from (${origin.path}). Commit it with the project; npm install needs no registry for it.`
      };
    case "folder": {
      const near = relative(dir, origin.path).replaceAll("\\", "/") || ".";
      const built = existsSync(join(origin.path, "dist", "index.js"));
      return {
        spec: `file:${near}`,
        said: built
          ? `roost-edge ${version} is linked from the folder ${origin.path} (file:${near}): rebuild it there (npm run build) for its changes to show.`
          : `roost-edge ${version} is linked from the folder ${origin.path} (file:${near}), which is not built: build it there first (npm run build), or the project has nothing to import.`
      };
    }
    case "unknown": {
      mkdirSync(join(dir, VENDOR), { recursive: true });
      // The installed files are the tarball's: pack them again, without
      // the scripts that would rebuild them from sources they lack.
      try {
        execFileSync(
          "npm",
          ["pack", "--ignore-scripts", "--pack-destination", VENDOR, installed],
          {
            cwd: dir,
            stdio: ["ignore", "ignore", "pipe"],
            shell: process.platform === "win32"
          }
        );
      } catch (error) {
        rmSync(join(dir, VENDOR), { recursive: true, force: true });
        return {
          spec: version,
          said: `${exact} exactly, from the npm registry: npm recorded no source of this command to copy, and packing its installed files failed (${(error as Error).message.split("\n")[0]}). If npm install cannot find ${version}, install the tarball you have: npm install <path>/roost-edge-${version}.tgz`
        };
      }
      return {
        spec: `file:${vendored}`,
        said: `${exact}: ${vendored}, packed from this command's installed files (npm recorded no source to copy). Commit it with the project; npm install needs no registry for it.`
      };
    }
  }
};
