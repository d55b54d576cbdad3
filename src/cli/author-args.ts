/** @module The command lines of an author's commands, `init` and `dev`: parsed without touching Node. */

import { UsageError } from "./args";

export interface DevCommand {
  command: "dev";
  /** Environment files to serve; none: the project's worker (wrangler.toml's main). */
  files: string[];
  port: number;
  ip: string;
  /**
   * Where sessions are kept: a folder (as typed, relative to where the
   * command runs), the project's `.roost/state` (undefined), or nowhere
   * (false: deleted when the server stops).
   */
  persist?: string | false;
  /** After `--`: passed to wrangler dev as they are. */
  wranglerArgs: string[];
}

export interface InitCommand {
  command: "init";
  /** The folder to create (or an empty one to fill). */
  dir: string;
}

export const AUTHOR_COMMANDS = `  roost-edge init <folder>                    scaffold a project of your own environments
  roost-edge dev [files…] [options]           serve your environments with the inspector
  roost-edge check [files…]                   typecheck your files (with none: the
                                              project tsconfig.json describes)`;

export const DEV_OPTIONS = `Options of dev:
  --port <n>            port (default $PORT or 8787)
  --ip <address>        address to listen on (default 127.0.0.1)
  --persist-to <dir>    keep sessions in <dir> (default: .roost/state in the
                        project, beside wrangler.toml)
  --no-persist          keep none: sessions are deleted when the server stops
  -- <wrangler args>    anything after -- goes to wrangler dev
Without files, dev serves the worker wrangler.toml's main names, as it is
deployed; with files, the environments they export. Variables come from
.dev.vars beside wrangler.toml (or .env), as wrangler dev reads them. Sessions outlive the
server: stop it, start it again, and they are there (delete .roost/state to
start afresh); one server at a time keeps sessions in a folder. Until the
files build, dev prints each error (file, line, what to fix) and waits for
the fix; a module that throws while it loads keeps the server up, answering
503 with the error, until it is fixed.`;

/** `argv` after the command's name. */
export const parseAuthorArgs = (
  command: "init" | "dev",
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>
): DevCommand | InitCommand => {
  const dash = argv.indexOf("--");
  const own = dash === -1 ? argv : argv.slice(0, dash);
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    if (!arg.startsWith("-")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (command === "dev" && arg === "--no-persist") {
      flags.set("no-persist", "");
      continue;
    }
    if (command !== "dev" || !["port", "ip", "persist-to"].includes(name))
      throw new UsageError(
        command === "dev"
          ? `Unknown option ${arg}. Options for wrangler dev go after --: roost-edge dev -- ${arg}`
          : `Unknown option ${arg}.`
      );
    const value = eq === -1 ? own[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "" || value.startsWith("--"))
      throw new UsageError(`--${name} needs a value.`);
    flags.set(name, value);
  }
  if (command === "init") {
    if (positional.length !== 1)
      throw new UsageError(
        "init needs one folder to create: roost-edge init my-env"
      );
    return { command, dir: positional[0]! };
  }
  if (flags.has("no-persist") && flags.has("persist-to"))
    throw new UsageError(
      "--persist-to keeps sessions and --no-persist keeps none: give one."
    );
  const wranglerArgs = dash === -1 ? [] : argv.slice(dash + 1);
  if (wranglerArgs.some((a) => a.startsWith("--persist-to")))
    throw new UsageError(
      "Give --persist-to before --, as roost-edge dev's own: roost-edge dev --persist-to <dir>"
    );
  const portText = flags.get("port") ?? env.PORT ?? "8787";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535)
    throw new UsageError(
      `--port must be a port from 1 to 65535, not "${portText}".`
    );
  return {
    command,
    files: positional,
    port,
    ip: flags.get("ip") ?? "127.0.0.1",
    ...(flags.has("no-persist")
      ? { persist: false as const }
      : flags.has("persist-to")
        ? { persist: flags.get("persist-to")! }
        : {}),
    wranglerArgs
  };
};
