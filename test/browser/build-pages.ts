/**
 * Builds the inspector and the chat example from their sources before
 * `wrangler dev` starts (the next global setup), so the browser tests drive
 * the current pages; rewriting the assets once the server runs would
 * reload them under the tests.
 */
import { execFileSync } from "node:child_process";

export default function setup() {
  for (const script of [
    "scripts/build-inspector.mjs",
    "scripts/build-chat.mjs"
  ]) {
    execFileSync(process.execPath, [script], { stdio: "inherit" });
  }
}
