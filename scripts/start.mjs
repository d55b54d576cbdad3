// Serves the runtime with the example environments on 127.0.0.1:8787.
// Development mode is explicit: ROOST_DEV=1 allows the fixed development
// secret and localhost CORS, so say so loudly before wrangler starts.
import { spawn } from "node:child_process";

const port = process.env.PORT ?? "8787";
const line = "!".repeat(72);
console.warn(
  [
    line,
    "!! Roost development mode (ROOST_DEV=1)",
    "!! Session tokens are signed with a FIXED DEVELOPMENT SECRET and no API",
    "!! key is required to create sessions. Never expose this server; deploy",
    "!! with ROOST_SECRETS (and ROOST_API_KEYS) set instead.",
    `!! Listening on http://127.0.0.1:${port}`,
    line
  ].join("\n")
);

const child = spawn(
  "npx",
  [
    "wrangler",
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "--var",
    "ROOST_DEV:1",
    ...process.argv.slice(2)
  ],
  { stdio: "inherit" }
);
child.on("exit", (code) => process.exit(code ?? 0));
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => child.kill(signal));
}
