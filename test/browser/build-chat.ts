/**
 * Builds the chat example from its sources before `wrangler dev` starts
 * (the next global setup), so the browser tests drive the current app;
 * rewriting the assets once the server runs would reload it under them.
 */
import { execFileSync } from "node:child_process";

export default function setup() {
  execFileSync(process.execPath, ["scripts/build-chat.mjs"], {
    stdio: "inherit"
  });
}
