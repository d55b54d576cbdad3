/**
 * @module The project's variable files where wrangler dev looks for them.
 * wrangler dev reads `.dev.vars` (`.dev.vars.<env>` with `--env`), or
 * failing that `.env`, `.env.local`, `.env.<env>` and `.env.<env>.local`,
 * from the folder of the config it is given, and dev gives it one it
 * generates in `.roost/<port>/`: so every such file of the project is
 * copied there, and wrangler picks among them as it would in the project.
 * They are read as the server starts, as plain wrangler dev reads them.
 */

import { copyFileSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

const isVarsFile = (name: string) => /^\.(dev\.vars|env)(\..+)?$/.test(name);

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Copies the project's variable files from `root` into `work`; their names. */
export const copyVarsFiles = (root: string, work: string): string[] => {
  const names = readdirSync(root)
    .filter((name) => isVarsFile(name) && isFile(join(root, name)))
    .sort();
  for (const name of names) copyFileSync(join(root, name), join(work, name));
  return names;
};

/**
 * wrangler's arguments with each `--env-file` path made absolute from
 * `cwd`, where the user typed it: wrangler would take it from the
 * generated config's folder, which the user never sees.
 */
export const envFilesFrom = (
  args: readonly string[],
  cwd: string
): string[] => {
  const from = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path));
  return args.map((arg, i) =>
    arg.startsWith("--env-file=")
      ? `--env-file=${from(arg.slice("--env-file=".length))}`
      : args[i - 1] === "--env-file" && !arg.startsWith("-")
        ? from(arg)
        : arg
  );
};
