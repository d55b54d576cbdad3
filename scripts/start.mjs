// Serves the runtime on 127.0.0.1:8787: the example environments, or with
// `npm start -- ./my-env.ts [more files]` the environments those files
// export. Development mode is explicit: ROOST_DEV=1 allows the fixed
// development secret and localhost CORS, so say so loudly before wrangler
// starts, and say "Listening" only once the server answers.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { writeOwnWorker } from "./own-worker.mjs";
import { waitUntilReady } from "./ready.mjs";

// `npm install` builds the inspector and the chat example (prepare); build
// them here too if they are missing.
for (const [built, script] of [
  ["../dist/inspector/index.html", "./build-inspector.mjs"],
  ["../dist/inspector/chat/index.html", "./build-chat.mjs"]
]) {
  if (!existsSync(new URL(built, import.meta.url))) {
    execFileSync(
      process.execPath,
      [new URL(script, import.meta.url).pathname],
      {
        stdio: "inherit"
      }
    );
  }
}

// A script argument would make wrangler dev drop [assets]; files are ours.
const isModule = (arg) => !arg.startsWith("-") && /\.m?[jt]s$/.test(arg);
const args = process.argv.slice(2);
const files = args.filter(isModule);
const passed = args.filter((arg) => !isModule(arg));
let config = [];
if (files.length > 0) {
  try {
    config = ["--config", writeOwnWorker(files)];
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}

const port = process.env.PORT ?? "8787";
const url = `http://127.0.0.1:${port}`;

// Another server on the port would answer the readiness probe below and
// make this one say "Listening" before wrangler fails to bind: find out first.
const portTaken = await new Promise((resolve) => {
  const probe = createServer();
  probe.once("error", (error) => resolve(error.code === "EADDRINUSE"));
  probe.listen(Number(port), "127.0.0.1", () =>
    probe.close(() => resolve(false))
  );
});
if (portTaken) {
  console.error(
    `Port ${port} on 127.0.0.1 is in use (another npm start, perhaps). Stop that server, or pick another port: PORT=8788 npm start.`
  );
  process.exit(1);
}
const line = "!".repeat(72);
console.warn(
  [
    line,
    "!! Roost development mode (ROOST_DEV=1)",
    "!! Session tokens are signed with a FIXED DEVELOPMENT SECRET and no API",
    "!! key is required to create sessions. Never expose this server; deploy",
    "!! with ROOST_SECRETS (and ROOST_API_KEYS) set instead.",
    line,
    files.length > 0
      ? `Serving the environments exported by ${files.join(", ")}.`
      : "Serving the example environments (examples/worker.ts lists them).",
    "Starting wrangler dev…",
    ""
  ].join("\n")
);

const child = spawn(
  "npx",
  [
    "wrangler",
    "dev",
    ...config,
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "--var",
    "ROOST_DEV:1",
    ...passed
  ],
  { stdio: "inherit" }
);
let exited = false;
child.on("exit", (code) => {
  exited = true;
  process.exit(code ?? 0);
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => child.kill(signal));
}

const environment = files.length > 0 ? "<name>" : "counter";
try {
  await waitUntilReady(`${url}/health`, { stopped: () => exited });
  console.warn(
    [
      "",
      `Listening on ${url}`,
      `Inspector: open ${url}/ in a browser.`,
      // The chat app talks to the catalog example, which a user's own
      // files do not serve.
      ...(files.length > 0
        ? []
        : [`Chat example (catalog): open ${url}/chat/ in a browser.`]),
      "",
      "Next, in a second terminal:",
      `  curl -s ${url}/v1/environments`,
      `  curl -s -X POST ${url}/v1/sessions -H 'content-type: application/json' -d '{"environment":"${environment}"}'`,
      ...(files.length > 0
        ? []
        : [
            `  npm run rollout -- --url ${url} --env calculator --episodes 200 --concurrency 16 --policy examples/scripted-policy/index.ts --out trajectories.jsonl`
          ]),
      ""
    ].join("\n")
  );
} catch (error) {
  if (!exited)
    console.warn(`Roost: ${error.message}; wrangler is still starting.`);
}
