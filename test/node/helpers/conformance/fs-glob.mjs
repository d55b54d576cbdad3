// The conformance suite imports `globSync` from "fs", which Node 20 lacks
// (it came in 22); it globs only `**/checks.json` under one folder, so
// this stand-in walks that folder for files of that name.
import fs from "node:fs";
import path from "node:path";

export * from "node:fs";
export default fs;

export function globSync(pattern, { cwd = "." } = {}) {
  const name = pattern.replace(/^\*\*\//, "");
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(cwd, dir), {
      withFileTypes: true
    })) {
      const rel = dir === "" ? entry.name : path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name === name) found.push(rel);
    }
  };
  walk("");
  return found;
}
