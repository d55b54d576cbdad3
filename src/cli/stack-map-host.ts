/**
 * @module The development server's stack mapper: the worker posts a stack
 * whose lines name wrangler's bundle, and gets it back naming the author's
 * files, read from the bundle's source map beside it. wrangler maps the
 * stacks it logs the same way; this is for the ones the worker sends on
 * (`tool.finished`, a `hook_failed` answer), which wrangler never sees.
 * The generated worker (dev-worker.ts) hands the session its URL.
 */

import { readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { SourceMap } from "node:module";
import { dirname, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** A stack is a few KiB; the worker caps what it sends at 16. */
const MAX_STACK_BYTES = 64 * 1024;

/** A frame's location in a bundle: `file:///…/worker.js:LINE:COLUMN`. */
const FRAME = /(file:\/\/\/[^\s()]+?\.m?js):(\d+):(\d+)/g;

interface Loaded {
  mtimeMs: number;
  map: SourceMap;
  root: string;
}

/**
 * Maps `stack`'s frames in bundles under `root` (the dev server's work
 * folder, so a post cannot make it read files elsewhere); frames it cannot
 * map stay as they are.
 */
export const createStackMapper = (root: string) => {
  const cache = new Map<string, Loaded>();
  const load = (bundle: string): Loaded | undefined => {
    const file = `${bundle}.map`;
    try {
      const { mtimeMs } = statSync(file);
      const kept = cache.get(file);
      if (kept?.mtimeMs === mtimeMs) return kept;
      const payload = JSON.parse(readFileSync(file, "utf8"));
      const loaded = {
        mtimeMs,
        map: new SourceMap(payload),
        root:
          typeof payload.sourceRoot === "string" && payload.sourceRoot !== ""
            ? payload.sourceRoot
            : dirname(file)
      };
      cache.set(file, loaded);
      return loaded;
    } catch {
      return undefined;
    }
  };
  const inside = resolve(root) + sep;
  return (stack: string): string =>
    stack.replace(FRAME, (frame, url: string, line: string, column: string) => {
      let bundle: string;
      try {
        bundle = fileURLToPath(url);
      } catch {
        return frame;
      }
      if (!resolve(bundle).startsWith(inside)) return frame;
      const loaded = load(bundle);
      if (loaded === undefined) return frame;
      // SourceMap counts from 0, stacks from 1.
      const entry = loaded.map.findEntry(Number(line) - 1, Number(column) - 1);
      if (!("originalSource" in entry) || !entry.originalSource) return frame;
      const source = resolve(loaded.root, entry.originalSource);
      return `${pathToFileURL(source).href}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    });
};

/** Serves `createStackMapper(root)` on a free loopback port; resolves with its URL. */
export const startStackMapHost = async (
  root: string
): Promise<{ url: string; stop(): void }> => {
  const map = createStackMapper(root);
  const server: Server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_STACK_BYTES) chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > MAX_STACK_BYTES) {
        res.writeHead(413).end();
        return;
      }
      res
        .writeHead(200, { "content-type": "text/plain; charset=utf-8" })
        .end(map(Buffer.concat(chunks).toString("utf8")));
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const address = server.address();
  const port =
    typeof address === "object" && address !== null ? address.port : 0;
  server.unref();
  return { url: `http://127.0.0.1:${port}`, stop: () => server.close() };
};
