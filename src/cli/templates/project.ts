/** @module The scaffold's project files around its environment: manifest, wrangler config, worker, README. */

/** The versions a scaffold pins: Roost's own, and those Roost is tested with. */
export interface ScaffoldVersions {
  /** roost-edge's spec: this very package, by version, tarball or folder (roost-pin.ts). */
  roost: string;
  zod: string;
  wrangler: string;
  typescript: string;
  workersTypes: string;
  vitest: string;
}

export const packageJson = (name: string, v: ScaffoldVersions): string =>
  `${JSON.stringify(
    {
      name,
      private: true,
      type: "module",
      scripts: {
        dev: "roost-edge dev",
        test: "vitest run",
        check: "roost-edge check",
        validate: "roost-edge validate src/index.ts",
        deploy: "wrangler deploy"
      },
      dependencies: {
        "roost-edge": v.roost,
        // Roost's own zod, so npm installs one copy.
        zod: v.zod
      },
      devDependencies: {
        "@cloudflare/workers-types": v.workersTypes,
        typescript: v.typescript,
        vitest: v.vitest,
        wrangler: v.wrangler
      }
    },
    null,
    2
  )}\n`;

export const wranglerToml = (name: string): string => `name = "${name}"
main = "src/worker.ts"
compatibility_date = "2026-04-26"
# esbuild's keep_names wraps every function created at run time in a
# defineProperty call: a few percent of a step's CPU, for names nothing reads.
keep_names = false
# Deployed minified, with source maps for readable stack traces.
# (roost-edge dev serves it unminified.)
minify = true
upload_source_maps = true

# zod without its 63 locales: about 50 KiB less gzipped. Messages stay English.
[alias]
zod = "roost-edge/zod-lean"

# One Durable Object per session, with SQLite storage.
[[durable_objects.bindings]]
name = "SESSIONS"
class_name = "Session"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["Session"]

# For code tools (roost-edge/code): the model's code runs in a fresh
# isolate this binding starts (Cloudflare's Dynamic Workers). Without it,
# a code tool answers that it needs one; nothing else changes.
# [[worker_loaders]]
# binding = "LOADER"
`;

export const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      module: "ES2022",
      moduleResolution: "Bundler",
      lib: ["ES2023"],
      types: ["@cloudflare/workers-types"],
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true
    },
    include: ["src", "test"]
  },
  null,
  2
)}\n`;

export const WORKER = `/** @module The worker: Roost serving this project's environments. \`wrangler deploy\` deploys it; \`npm run dev\` serves it. */

import { createRoost, type RoostBindings } from "roost-edge";
import { lock } from "./index";

const roost = createRoost({ environments: [lock] });

/** The session Durable Object; wrangler.toml binds SESSIONS to it. */
export const Session = roost.Session;

export default { fetch: roost.fetch } satisfies ExportedHandler<RoostBindings>;
`;

export const GITIGNORE = `node_modules/
.wrangler/
.roost/
.dev.vars
`;

export const readme = (name: string): string => `# ${name}

Agent environments served by [Roost](https://www.npmjs.com/package/roost-edge)
on Cloudflare Workers: one Durable Object per session, an HTTP and WebSocket
API for training loops and agents.

## Files

- \`src/index.ts\`: the environment, \`lock\`. A tool (\`try_code\`), a secret
  in the hidden store (tools read it, no client or model does), typed state
  (\`tries\`, \`best\`) and a reward of 1 when the lock opens. Its code comes
  from the task's seed through a seeded generator, never \`Math.random\`, so
  a task replays exactly; a generated dataset makes task i seed i; and
  \`validation.oracle\` is the policy that knows the answer, which
  \`roost-edge validate\` plays. Rewrite it, or add environments beside it.
- \`src/worker.ts\`: the worker, \`createRoost({ environments: [lock] })\`.
  List every environment to serve here.
- \`test/index.test.ts\`: the environment in plain Node with
  \`createLocalSession\`, no server, and \`validateEnvironment\`.
- \`wrangler.toml\`: the \`SESSIONS\` Durable Object binding and its SQLite
  migration, which is all the platform setup Roost needs.
- \`package.json\` pins \`roost-edge\` exactly: a version of the npm
  registry, or \`vendor/\`'s tarball when \`roost-edge init\` came from one
  (commit it with the project).

## Develop

\`\`\`sh
npm install
npm run dev        # http://127.0.0.1:8787, the inspector at /
\`\`\`

\`npm run dev\` (\`roost-edge dev\`) serves \`src/worker.ts\` unminified, in
development mode: tokens are signed with a fixed development secret and no
API key is needed, so never expose it. Options: \`--port 8788\`,
\`--ip 0.0.0.0\`, and after \`--\` anything for \`wrangler dev\`
(\`npx roost-edge help\` lists them all). It reloads when you save. A file
that does not build (a syntax error, a package not installed) is printed
with its line and what to fix, and the server starts once you save the fix;
if an environment fails to load (a bad name, a throw while the module is
evaluated), the server stays up, answers 503 with what to fix, and serves
again once you save the fix.

Sessions are kept in \`.roost/state\`: stop the server, start it again, and
they are still there (their tokens too). Delete the folder to start afresh;
\`--no-persist\` keeps none, \`--persist-to <dir>\` keeps them elsewhere.

In a second terminal:

\`\`\`sh
curl -s http://127.0.0.1:8787/v1/environments
curl -s -X POST http://127.0.0.1:8787/v1/sessions \\
  -H 'content-type: application/json' -d '{"environment":"lock","task":{"seed":7}}'
\`\`\`

The answer carries \`session_id\` and \`token\`; reset, then step with a
tool call:

\`\`\`sh
curl -s -X POST http://127.0.0.1:8787/v1/sessions/$ID/reset -H "authorization: Bearer $TOKEN" \\
  -H 'content-type: application/json' -d '{}'
curl -s -X POST http://127.0.0.1:8787/v1/sessions/$ID/step -H "authorization: Bearer $TOKEN" \\
  -H 'content-type: application/json' \\
  -d '{"action":{"tool_calls":[{"id":"c1","function":{"name":"try_code","arguments":{"code":"0000"}}}]}}'
\`\`\`

Rollouts with a policy, trajectories as JSONL:
\`npx roost-edge rollout --env lock --episodes 10 --out trajectories.jsonl\`.

## Test and check

\`\`\`sh
npm test           # vitest: test/ in plain Node
npm run validate   # roost-edge validate src/index.ts
npm run check      # roost-edge check: typechecks your files
\`\`\`

\`roost-edge validate\` plays episodes of every environment the module
exports, on local sessions: a task reset twice must play the same
(determinism, isolation), no hidden value may reach what the model sees,
the oracle must reach the top reward and policies that know nothing must
not. It reads TypeScript itself, with the esbuild wrangler brings; so do
\`roost-edge rollout --policy my-policy.ts\` and \`rescore --rubric\`.

## Deploy

\`\`\`sh
npx wrangler secret put ROOST_SECRETS    # kid:secret, e.g. k1:<32+ random bytes, base64>
npx wrangler secret put ROOST_API_KEYS   # optional: required to create sessions
npx wrangler deploy
\`\`\`

Without \`ROOST_SECRETS\` the deployed worker refuses session routes (503).
`;
