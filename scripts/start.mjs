// Serves the runtime on 127.0.0.1:8787: the example environments, or with
// `npm start -- ./my-env.ts [more files]` the environments those files
// export, wherever they are. The server itself is the CLI's `roost-edge
// dev` (src/cli/dev.ts), run from the sources: one implementation of the
// generated worker, the development banner, the port check and the next
// steps. Here it serves the clone's wrangler.toml and inspector, and maps
// `roost-edge` to the clone's sources, so a file outside the clone that
// imports "roost-edge/core" is served too.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";

const root = fileURLToPath(new URL("..", import.meta.url));

// `npm install` builds the inspector and the chat example (prepare); build
// them here too if they are missing.
for (const [built, script] of [
  ["dist/inspector/index.html", "scripts/build-inspector.mjs"],
  ["dist/inspector/chat/index.html", "scripts/build-chat.mjs"]
]) {
  if (!existsSync(resolve(root, built)))
    execFileSync(process.execPath, [resolve(root, script)], {
      stdio: "inherit"
    });
}

// Files are ours; anything else (`--log-level warn`) goes to wrangler dev,
// but for `--port` and `--ip`, which the dev server takes as its own
// (src/cli/dev-listen.ts): `--port 9105` wins over PORT, so the hint a
// taken port prints (`--port N`, or `PORT=N`) holds either way. The
// clone's .dev.vars is read as plain wrangler dev reads it
// (src/cli/dev-vars.ts).
const isModule = (arg) => !arg.startsWith("-") && /\.m?[jt]sx?$/.test(arg);
const given = process.argv.slice(2);
// `--persist-to <dir>` keeps the sessions there (the dev server's own
// option, with its one-server lock), not a second flag for wrangler.
const at = given.findIndex(
  (arg) => arg === "--persist-to" || arg.startsWith("--persist-to=")
);
const persistTo =
  at === -1
    ? undefined
    : given[at].includes("=")
      ? given[at].slice("--persist-to=".length)
      : given[at + 1];
const args =
  at === -1
    ? given
    : given.filter(
        (_, i) => i !== at && (i !== at + 1 || given[at].includes("="))
      );
// npm runs scripts in the package's folder; paths are the user's, from
// where they typed the command.
const cwd = process.env.INIT_CWD ?? process.cwd();
const src = (path) => resolve(root, "src", path);
const { runDev } = await tsImport("../src/cli/dev.ts", import.meta.url);
process.exitCode = await runDev({
  root,
  config: readFileSync(resolve(root, "wrangler.toml"), "utf8"),
  files: args.filter(isModule).map((file) => resolve(cwd, file)),
  ...(persistTo === undefined ? {} : { persistTo: resolve(cwd, persistTo) }),
  port: Number(process.env.PORT ?? "8787"),
  ip: "127.0.0.1",
  assets: resolve(root, "dist", "inspector"),
  aliases: {
    "roost-edge": src("index.ts"),
    "roost-edge/core": src("core.ts"),
    "roost-edge/client": src("client/index.ts"),
    "roost-edge/react": src("react/index.ts"),
    "roost-edge/code": src("code/index.ts"),
    "roost-edge/layers": src("layers/index.ts"),
    "roost-edge/zod-lean": src("zod-lean.ts"),
    // The files served may import `{ z }` from zod: they get zod-lean's
    // whole `z`, not the ZodType-only one of Roost's own worker (zod-slim).
    zod: src("zod-lean.ts")
  },
  wrangler: createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js"),
  wranglerArgs: args.filter((arg) => !isModule(arg)),
  rollout:
    "npm run rollout -- --url <url> --env <env> --episodes 10 --out trajectories.jsonl",
  cwd
});
