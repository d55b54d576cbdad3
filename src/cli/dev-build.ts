/**
 * @module The dev server's gate before wrangler starts: the generated
 * worker and the author's files must build. wrangler, whose first build
 * fails, prints the error with paths from the generated folder and then
 * never serves, not even once the file is fixed; so the files are built
 * here first, with the bundler wrangler will use, and until they build
 * the author reads each error (file, line, what to fix) and the command
 * watches them, starting the server at the first build that succeeds.
 */

import { builtinModules, createRequire } from "node:module";
import { join } from "node:path";
import type { Plugin } from "esbuild";
import {
  type BuildMessage,
  type EsbuildApi,
  findEsbuild,
  formatErrors
} from "./esbuild";

export interface BuildGateOptions {
  /** wrangler's bin script: its esbuild is the one used. */
  wrangler: string;
  /** The generated worker (absolute). */
  entry: string;
  /** The generated config's text: its [alias] table is applied as wrangler does. */
  config: string;
  /** The project, where aliases resolve from. */
  root: string;
  /** Where paths in messages are relative to. */
  cwd: string;
  /** What the author knows as the thing that failed, e.g. "src/worker.ts (or a module it imports)". */
  label: string;
  log: (text: string) => void;
  color: boolean;
}

export interface BuildGate {
  /** true once everything builds; false when stopped first. */
  built: Promise<boolean>;
  stop(): void;
}

/**
 * Builds the worker as wrangler would (its conditions and aliases; what
 * workerd provides and wrangler's module rules left outside) and resolves
 * once it builds. Undefined when the project has no esbuild to use, or
 * builds with a command of its own (`[build]`) or not at all (`no_bundle`):
 * then wrangler is left to say.
 */
export const gateOnBuild = async (
  options: BuildGateOptions
): Promise<BuildGate | undefined> => {
  if (/^\s*(\[build\]|no_bundle\s*=\s*true)/m.test(options.config))
    return undefined;
  const esbuild = findEsbuild([options.wrangler]);
  if (esbuild === undefined) return undefined;
  let done!: (built: boolean) => void;
  const built = new Promise<boolean>((resolve) => {
    done = resolve;
  });
  let failing = false;
  // An esbuild older than these options (an old wrangler's) cannot check:
  // wrangler is left to say, as without one.
  const context = await esbuild
    .context({
      entryPoints: [options.entry],
      absWorkingDir: options.cwd,
      bundle: true,
      write: false,
      format: "esm",
      target: "es2024",
      conditions: ["workerd", "worker", "browser"],
      loader: { ".js": "jsx", ".mjs": "jsx", ".cjs": "jsx" },
      external: [
        "cloudflare:*",
        "node:*",
        "__STATIC_CONTENT_MANIFEST",
        ...builtinModules
      ],
      logLevel: "silent",
      plugins: [
        aliases(aliasesOf(options.config), options.root),
        {
          name: "roost-build-gate",
          setup(build) {
            // wrangler's module rules import these as text, data or Wasm.
            build.onResolve(
              { filter: /\.(wasm|bin|txt|html|sql)(\?module)?$/ },
              (args) => ({ path: args.path, external: true })
            );
            build.onEnd((result) => {
              const errors = result.errors.filter(
                (e) => !/No loader is configured/.test(e.text)
              );
              if (errors.length === 0) {
                if (failing) options.log("Roost: it builds now.\n");
                done(true);
                return;
              }
              failing = true;
              options.log(report(esbuild, errors, options));
            });
          }
        }
      ]
    })
    .catch(() => undefined);
  if (context === undefined) return undefined;
  await context.watch();
  void built.then(() => context.dispose());
  return {
    built,
    stop: () => {
      done(false);
    }
  };
};

const report = (
  esbuild: EsbuildApi,
  errors: BuildMessage[],
  options: BuildGateOptions
) =>
  [
    "",
    formatErrors(esbuild, errors, options.color).trimEnd(),
    "",
    `Roost: ${options.label} does not build, so the server cannot start yet. Fix ${errors.length === 1 ? "it" : "them"} and save: roost-edge dev watches the files and starts the server once they build.`,
    ""
  ].join("\n");

/** The generated config's `[alias]` table: `name = "target"` lines, quoted names too. */
export const aliasesOf = (config: string): Record<string, string> => {
  const found: Record<string, string> = {};
  let inAlias = false;
  for (const line of config.split("\n")) {
    if (/^\s*\[/.test(line)) inAlias = line.trim() === "[alias]";
    else if (inAlias) {
      const m = /^\s*(?:"([^"]+)"|([\w.@/-]+))\s*=\s*"([^"]*)"/.exec(line);
      if (m) found[m[1] ?? m[2]!] = m[3]!;
    }
  }
  return found;
};

/** wrangler's alias plugin: the name is replaced by the target as the project resolves it. */
const aliases = (table: Record<string, string>, root: string): Plugin => ({
  name: "roost-aliases",
  setup(build) {
    const names = Object.keys(table);
    if (names.length === 0) return;
    const require = createRequire(join(root, "package.json"));
    build.onResolve(
      { filter: new RegExp(`^(${names.map(escapeRegExp).join("|")})$`) },
      (args) => ({ path: require.resolve(table[args.path]!) })
    );
  }
});

const escapeRegExp = (text: string) =>
  text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
