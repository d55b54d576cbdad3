/**
 * @module Scenario 5: the gzipped size of the deployable worker, built by
 * `wrangler deploy --dry-run` from the production wrangler.toml, and what
 * it is made of (esbuild's metafile, bytes per package or source folder).
 */

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { progress } from "./lib/stats";
import { bytes, type Row } from "./lib/table";

/** Issue 22's target for the minified demo worker (250 KiB was the first, unminified one), and issue 48's. */
const TARGET_KIB = 150;
/** Issue 48's target for the core worker (bench/core: one environment, no layer). */
const CORE_TARGET_KIB = 60;
const CONTRIBUTORS = 5;

interface Metafile {
  outputs: Record<
    string,
    { bytes: number; inputs: Record<string, { bytesInOutput: number }> }
  >;
}

/** `zod`, `@hono/zod-openapi`, or a project folder such as `src/session`. */
const owner = (input: string): string => {
  const pkg = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1]!;
  // A build from bench/core names the sources from there (../../src/…).
  return input
    .replace(/^(\.\.\/)+/, "")
    .split("/")
    .slice(0, 2)
    .join("/");
};

interface Build {
  /** Wrangler's own "gzip:" figure, in bytes. */
  gzip: number;
  /** The emitted script, gzipped here (a cross-check). */
  ownGzip: number;
  raw: number;
  meta: Metafile;
}

const build = async (
  root: string,
  minify: boolean,
  config = join(root, "wrangler.toml")
): Promise<Build> => {
  const out = mkdtempSync(join(tmpdir(), "roost-bundle-"));
  try {
    const { stdout } = await promisify(execFile)(
      join(root, "node_modules", ".bin", "wrangler"),
      [
        "deploy",
        "--dry-run",
        "-c",
        config,
        "--outdir",
        out,
        "--metafile",
        join(out, "meta.json"),
        // The production config minifies; the unminified build shows what the bytes are made of.
        ...(minify ? [] : ["--minify=false"])
      ],
      { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: "false" } }
    );
    const line = stdout.match(
      /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/
    );
    if (!line) throw new Error(`no upload size in:\n${stdout}`);
    const meta = JSON.parse(
      readFileSync(join(out, "meta.json"), "utf8")
    ) as Metafile;
    const [script] = Object.entries(meta.outputs).filter(
      ([path]) => !path.endsWith(".map")
    );
    const code = readFileSync(join(out, basename(script![0])));
    return {
      gzip: Number(line[2]) * 1024,
      ownGzip: gzipSync(code).length,
      raw: Number(line[1]) * 1024,
      meta
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
};

export const bundle = async (root: string): Promise<Row[]> => {
  progress("5 bundle: wrangler deploy --dry-run");
  const deployed = await build(root, true);
  const plain = await build(root, false);
  const coreConfig = join(root, "bench", "core", "wrangler.toml");
  const core = await build(root, true, coreConfig);
  const corePlain = await build(root, false, coreConfig);
  const scenario = "5 Bundle";
  const rows: Row[] = [
    {
      scenario,
      measure:
        "deployable worker (production wrangler.toml: minified, zod aliased to src/zod-slim.ts; `wrangler deploy --dry-run`), gzipped",
      roost: bytes(deployed.gzip),
      reference: `uncompressed ${bytes(deployed.raw)}; gzip here: ${bytes(deployed.ownGzip)}`,
      ratio: bytes(deployed.gzip),
      target: `≤ ${TARGET_KIB} KiB`,
      met: deployed.gzip <= TARGET_KIB * 1024
    },
    {
      scenario,
      measure: "for scale: the same unminified (`--minify=false`)",
      roost: bytes(plain.gzip),
      reference: `uncompressed ${bytes(plain.raw)}`,
      ratio: bytes(plain.gzip),
      target: "",
      met: null
    },
    {
      scenario,
      measure:
        "the core worker (`bench/core`: one environment over HTTP and the session socket, no layer), minified, gzipped",
      roost: bytes(core.gzip),
      reference: `uncompressed ${bytes(core.raw)}; unminified ${bytes(corePlain.gzip)} gzipped`,
      ratio: bytes(core.gzip),
      target: `≤ ${CORE_TARGET_KIB} KiB (issue 48)`,
      met: core.gzip <= CORE_TARGET_KIB * 1024
    }
  ];
  rows.push(...contributors(scenario, plain.meta, "demo"));
  rows.push(...contributors(scenario, corePlain.meta, "core"));
  const mcp = await build(
    root,
    true,
    join(root, "bench", "mcp-only", "wrangler.toml")
  );
  rows.push({
    scenario,
    measure:
      "the MCP layer's cost: the core worker with `mcp()` (`bench/mcp-only`) − the core worker, gzipped",
    roost: bytes(mcp.gzip - core.gzip),
    reference: `${bytes(mcp.gzip)} with it, ${bytes(core.gzip)} without`,
    ratio: bytes(mcp.gzip - core.gzip),
    target: "",
    met: null
  });
  rows.push(...capabilities(scenario, mcp.meta));
  return rows;
};

/** MCP's capabilities by the files that serve them. */
const MCP_CAPABILITIES: readonly [string, RegExp][] = [
  [
    "the transport, revisions, tools and routes",
    /mcp\/(dispatch|streamable-http|revision|routes|tools|tool-result|target|stateless-environment|start-session|session-token|failure|operations|index)\.ts|protocol\/mcp\.ts/
  ],
  [
    "tasks (2025-11-25's and the 2026 extension)",
    /mcp\/(tasks|tasks-extension|call-tasks|task-capability|task-counts|alarms)\.ts|task-rows|protocol\/(call-tasks|mcp-tasks)/
  ],
  [
    "asking the client mid-call, streamed calls, input-required results",
    /mcp\/(client-asks|input-required|request-state|session-call|session-stream|exchange)\.ts|tools\/ask|mcp-client/
  ],
  ["prompts and completions", /mcp\/(prompts|completion)\.ts/],
  ["resources and templates", /mcp\/resources\.ts/],
  ["parameter headers (SEP-2243)", /mcp\/param-headers\.ts/],
  ["the live view (an MCP App)", /mcp\/live-view/]
];

/** Minified bytes of each MCP capability in the MCP-only worker. */
const capabilities = (scenario: string, meta: Metafile): Row[] => {
  const inputs = Object.values(meta.outputs).flatMap((o) =>
    Object.entries(o.inputs)
  );
  return MCP_CAPABILITIES.map(([name, files]) => ({
    scenario,
    measure: `MCP: ${name} (bytes in the minified output)`,
    roost: bytes(
      inputs
        .filter(([path]) => files.test(path))
        .reduce((sum, [, i]) => sum + i.bytesInOutput, 0)
    ),
    reference: "",
    ratio: "",
    target: "",
    met: null
  }));
};

/** The largest parts of a build, by package or source folder. */
const contributors = (
  scenario: string,
  meta: Metafile,
  which: string
): Row[] => {
  const rows: Row[] = [];
  const inputs = Object.values(meta.outputs).flatMap((o) =>
    Object.entries(o.inputs)
  );
  const total = inputs.reduce((sum, [, i]) => sum + i.bytesInOutput, 0);
  const byOwner = new Map<string, number>();
  let zodLocales = 0;
  const localeFiles: string[] = [];
  for (const [path, { bytesInOutput }] of inputs) {
    const key = owner(path);
    byOwner.set(key, (byOwner.get(key) ?? 0) + bytesInOutput);
    if (path.includes("node_modules/zod/v4/locales/") && bytesInOutput > 0) {
      zodLocales += bytesInOutput;
      localeFiles.push(basename(path));
    }
  }
  // English alone (en.js, registered by zod's schemas) since the alias.
  const locales =
    localeFiles.length <= 2
      ? localeFiles.join(", ")
      : `${localeFiles.length} files`;
  const top = [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, CONTRIBUTORS);
  top.forEach(([name, size], i) => {
    const share = Math.round((size / total) * 100);
    rows.push({
      scenario,
      measure: `${which} contributor ${i + 1}: \`${name}\` (bytes in the unminified output)`,
      roost: bytes(size),
      reference:
        name === "zod" && zodLocales > 0
          ? `of which \`zod/v4/locales\` ${bytes(zodLocales)} (${locales})`
          : "",
      ratio: `${share} %`,
      target: "",
      met: null
    });
  });
  return rows;
};
