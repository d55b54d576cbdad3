// Builds the chat example (examples/chat/) into dist/inspector/chat, inside
// the folder wrangler.toml serves as static assets, so the worker serves it
// at /chat/ beside the inspector: one bundled script, no CDN.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const app = join(root, "examples", "chat");
const out = join(root, "dist", "inspector", "chat");
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(app, "src", "main.tsx")],
  tsconfig: join(app, "tsconfig.json"),
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  jsx: "automatic",
  define: { "process.env.NODE_ENV": '"production"' },
  minify: true,
  sourcemap: true,
  outfile: join(out, "app.js"),
  logLevel: "warning"
});
for (const file of ["index.html", "style.css"]) {
  copyFileSync(join(app, file), join(out, file));
}
