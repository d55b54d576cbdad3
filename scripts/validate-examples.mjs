// `npm run validate:examples`: `roost-edge validate` (local sessions) over
// every example module, one after another; exits 1 when any check of any
// example fails, or when no example module is found. An example module is a
// .ts file directly in an examples/<name>/ folder that calls
// defineEnvironment: a new example is validated without being listed here.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const examples = join(root, "examples");

const modules = readdirSync(examples, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(join(examples, dir.name))
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
      .map((file) => join(examples, dir.name, file))
  )
  .filter((file) => readFileSync(file, "utf8").includes("defineEnvironment("))
  .sort();

if (modules.length === 0) {
  process.stderr.write("validate:examples: no example module found.\n");
  process.exit(1);
}

const failed = [];
for (const module of modules) {
  const path = relative(root, module);
  process.stderr.write(`validate ${path}\n`);
  const { status } = spawnSync(
    join(root, "node_modules", ".bin", "tsx"),
    [join(root, "src", "cli", "main.ts"), "validate", path],
    { cwd: root, stdio: "inherit" }
  );
  if (status !== 0) failed.push(`${path} (exit ${status})`);
}
process.stderr.write(
  failed.length === 0
    ? `validate:examples: ${modules.length} example module(s) passed.\n`
    : `validate:examples: failed: ${failed.join(", ")}\n`
);
process.exit(failed.length === 0 ? 0 : 1);
