// Builds the inspector (inspector/) into dist/inspector, the folder
// wrangler.toml serves as static assets: one bundled script, no CDN.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "inspector");
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, "inspector", "src", "main.ts")],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: true,
  outfile: join(out, "app.js"),
  logLevel: "warning"
});
for (const file of ["index.html", "style.css", "favicon.svg"]) {
  copyFileSync(join(root, "inspector", file), join(out, file));
}
