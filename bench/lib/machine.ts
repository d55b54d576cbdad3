/** @module The machine line every report starts with: cores, CPU, Node and wrangler. */

import { execFileSync } from "node:child_process";
import { cpus } from "node:os";
import { join } from "node:path";

/** e.g. "2 cores (AMD EPYC), Node v20.20.2, wrangler 4.86.0 (`wrangler dev`, local workerd)". */
export const machine = (root: string): string => {
  const cpu = cpus();
  const wrangler = execFileSync(
    join(root, "node_modules", ".bin", "wrangler"),
    ["--version"],
    { encoding: "utf8" }
  ).trim();
  return `${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), Node ${process.version}, wrangler ${wrangler} (\`wrangler dev\`, local workerd)`;
};
