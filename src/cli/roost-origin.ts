/**
 * @module Where this roost-edge came from: the npm registry, a tarball, a
 * folder. `init` pins a new project to the same one, so its `npm install`
 * works before the package is published and never picks another version.
 */

import { existsSync, readFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";

export type RoostOrigin =
  /** A registry's tarball of this version: the project pins the version. */
  | { kind: "registry"; version: string }
  /** Another URL npm installed it from (a git repository, a tarball's address). */
  | { kind: "url"; url: string }
  /** A tarball on this machine, there still. */
  | { kind: "tarball"; path: string }
  /** A folder (a clone, or one `npm install ../roost` linked): the package is its files. */
  | { kind: "folder"; path: string }
  /** Installed, but npm recorded no source that is still there (a global install, a deleted tarball). */
  | { kind: "unknown" };

interface LockEntry {
  version?: string;
  resolved?: string;
}

/**
 * Reads npm's record of the install that holds `root` (this package's
 * folder): the hidden lockfile in node_modules, else the project's
 * package-lock.json. A folder outside any node_modules is the package's
 * own files.
 */
export const roostOrigin = (root: string, version: string): RoostOrigin => {
  const at = root.indexOf(`${sep}node_modules${sep}`);
  if (at === -1) return { kind: "folder", path: root };
  const project = root.slice(0, at);
  // The lockfile's key: the package's path inside the project, with slashes.
  const key = root
    .slice(at + 1)
    .split(sep)
    .join("/");
  for (const lock of [
    join(project, "node_modules", ".package-lock.json"),
    join(project, "package-lock.json")
  ]) {
    const entry = readEntry(lock, key);
    if (entry?.resolved === undefined) continue;
    return fromResolved(entry.resolved, project, version);
  }
  return { kind: "unknown" };
};

const readEntry = (lock: string, key: string): LockEntry | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(lock, "utf8")) as {
      packages?: Record<string, LockEntry>;
    };
    return parsed.packages?.[key];
  } catch {
    return undefined;
  }
};

/** A lockfile's `resolved` (relative paths are the project's) as an origin. */
const fromResolved = (
  resolved: string,
  project: string,
  version: string
): RoostOrigin => {
  if (resolved.startsWith("file:")) {
    const path = resolve(project, resolved.slice("file:".length));
    if (!existsSync(path)) return { kind: "unknown" };
    return /\.(tgz|tar\.gz|tar)$/.test(path)
      ? { kind: "tarball", path }
      : { kind: "folder", path };
  }
  // The registry's own address for this version: any registry's layout.
  if (resolved.endsWith(`/roost-edge/-/roost-edge-${version}.tgz`))
    return { kind: "registry", version };
  return { kind: "url", url: resolved };
};
