// Serves the runtime with the example environments on 127.0.0.1:8787.
// Development mode is explicit: ROOST_DEV=1 allows the fixed development
// secret and localhost CORS, so say so loudly before wrangler starts.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";

// `npm install` builds the inspector (prepare); build it here too if it is missing.
if (!existsSync(new URL("../dist/inspector/index.html", import.meta.url))) {
  execFileSync(
    process.execPath,
    [new URL("./build-inspector.mjs", import.meta.url).pathname],
    {
      stdio: "inherit"
    }
  );
}

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
    line,
    "",
    `Inspector: open http://127.0.0.1:${port}/ in a browser.`,
    "",
    "Next, in a second terminal:",
    `  curl -s http://127.0.0.1:${port}/v1/environments`,
    `  curl -s -X POST http://127.0.0.1:${port}/v1/sessions -H 'content-type: application/json' -d '{"environment":"counter"}'`,
    `  npm run rollout -- --url http://127.0.0.1:${port} --env calculator --episodes 200 --concurrency 16 --policy scripted --out trajectories.jsonl`,
    ""
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
