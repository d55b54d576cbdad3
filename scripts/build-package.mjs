// Builds what the package ships for its six exports: ESM JavaScript, one
// file per export with the code they share in chunks (source maps point into
// the shipped src/), and the .d.ts files tsc emits. Node's ESM resolution,
// and TypeScript's "nodenext" with it, wants a file extension on every
// relative import, while the sources (bundler resolution) have none; the
// declarations get theirs here.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const types = join(dist, "types");

/** Each folder of src/layers is a layer with an export of its own (`roost-edge/layers/mcp`). */
const LAYERS = readdirSync(join(root, "src", "layers"), {
  withFileTypes: true
})
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

for (const old of [
  "index.js",
  "core.js",
  "client.js",
  "react.js",
  "zod-lean.js",
  "validate.js",
  "code.js",
  "layers.js",
  "layers",
  "chunks",
  "types"
]) {
  rmSync(join(dist, old), { recursive: true, force: true });
  rmSync(join(dist, `${old}.map`), { force: true });
}

await build({
  entryPoints: {
    index: join(root, "src", "index.ts"),
    core: join(root, "src", "core.ts"),
    client: join(root, "src", "client", "index.ts"),
    // React stays the app's own: a peer dependency, external like every package.
    react: join(root, "src", "react", "index.ts"),
    // Code tools, apart: the parser they bring stays out of workers without them.
    code: join(root, "src", "code", "index.ts"),
    // For a worker's wrangler.toml: `[alias] zod = "roost-edge/zod-lean"`.
    "zod-lean": join(root, "src", "zod-lean.ts"),
    // The layers, each apart, so a worker carries only those it imports.
    layers: join(root, "src", "layers", "index.ts"),
    ...Object.fromEntries(
      LAYERS.map((name) => [
        `layers/${name}`,
        join(root, "src", "layers", name, "index.ts")
      ])
    ),
    // Checks an environment before training: Node or a test, never a worker.
    validate: join(root, "src", "validate", "index.ts")
  },
  outdir: dist,
  bundle: true,
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  format: "esm",
  platform: "neutral",
  target: "es2022",
  packages: "external",
  external: ["cloudflare:workers"],
  sourcemap: true,
  sourcesContent: false,
  logLevel: "warning"
});

const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
for (const project of [
  "tsconfig.build.json",
  "src/client/tsconfig.build.json",
  "src/react/tsconfig.build.json"
]) {
  execFileSync(process.execPath, [tsc, "-p", join(root, project)], {
    stdio: "inherit"
  });
}

// A layer's `declare module "…"` (its operations, by declaration merging) too.
const specifier =
  /(\bfrom\s*|\bimport\(\s*|\bdeclare module\s*)(["'])(\.\.?\/[^"']*)\2/g;
const withExtension = (file, spec) => {
  if (spec.endsWith(".js")) return spec;
  const target = resolve(dirname(file), spec);
  if (existsSync(`${target}.d.ts`)) return `${spec}.js`;
  if (existsSync(join(target, "index.d.ts"))) return `${spec}/index.js`;
  throw new Error(`${file}: cannot resolve ${spec}`);
};
const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]
  );
// Line by line, skipping comment lines: a JSDoc example's import is left alone.
const isComment = (line) => /^\s*(\*|\/\*|\/\/)/.test(line);
for (const file of walk(types).filter((f) => f.endsWith(".d.ts"))) {
  const text = readFileSync(file, "utf8");
  const fixed = text
    .split("\n")
    .map((line) =>
      isComment(line)
        ? line
        : line.replace(
            specifier,
            (_, lead, quote, spec) =>
              `${lead}${quote}${withExtension(file, spec)}${quote}`
          )
    )
    .join("\n");
  if (fixed !== text) writeFileSync(file, fixed);
}
