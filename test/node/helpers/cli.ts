/** @module The repository's rollout command as `npm run rollout` runs it (tsx, no build), against the end-to-end server. */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** `npm run rollout -- --url <baseUrl> …args`; rejects with `{code, stderr}` on a non-zero exit. */
export const rolloutCli = (
  baseUrl: string,
  args: string[],
  env: Record<string, string> = {}
) =>
  run(
    join("node_modules", ".bin", "tsx"),
    ["src/cli/main.ts", "rollout", "--url", baseUrl, ...args],
    { env: { ...process.env, NO_COLOR: "1", ...env } }
  );
