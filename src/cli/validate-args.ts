/** @module `roost-edge validate`'s command line: a module of environments, or a server (and optionally a module), which of them, how many tasks. */

import { UsageError } from "./args";

export interface ValidateCommand {
  command: "validate";
  /** The ES module (path) exporting the environments; optional with `url`. */
  module?: string;
  /** Sessions are made on this server instead of in this process. */
  url?: string;
  /** API key for creating sessions on `url` (`--api-key` or $ROOST_API_KEY). */
  apiKey?: string;
  /** Only this environment; default all the module exports (or the server lists). */
  env?: string;
  /** Tasks per split the oracle and floors play. */
  tasks?: number;
}

export const VALIDATE_COMMAND = `  roost-edge validate <module> [--env <name>] [--tasks <n>]
                                              check the environments a module
                                              exports before training on them
  roost-edge validate --url <url> [<module>] [--env <name>]
                                              the same checks on a running
                                              server's sessions, and more`;

export const VALIDATE_OPTIONS = `Options of validate (without --url: in this process, on local sessions):
  --url <url>           make the sessions on this server instead, over HTTP;
                        adds what only a server shows: a fork continuing as
                        its source, and no leakage into events, /frame,
                        OpenEnv frames or MCP listings. Without a module it
                        validates every environment the server lists; the
                        oracle lives in the module, so pass it to run it
  --api-key <key>       with --url: API key for creating sessions
                        (default $ROOST_API_KEY)
  --env <name>          validate only this environment
  --tasks <n>           tasks per split the oracle and the floors play
                        (default 5); the reset check tries up to 200 per split
Prints PASS, FAIL, SKIP or a mean return per check (determinism, isolation,
no leakage, oracle, floors, contract) and exits 1 when any check fails.
What each check means and what to do when it fails: docs/15-validate.md.`;

const FLAGS = new Set(["env", "tasks", "url", "api-key"]);

/** Reads `validate [<module>] [--url u] [--api-key k] [--env n] [--tasks n]`. */
export const parseValidateArgs = (
  rest: readonly string[],
  environment: Readonly<Record<string, string | undefined>> = {}
): ValidateCommand => {
  let module: string | undefined;
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (!arg.startsWith("--")) {
      if (module !== undefined)
        throw new UsageError(`Unexpected argument "${arg}".`);
      module = arg;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const value = eq === -1 ? rest[++i] : arg.slice(eq + 1);
    if (!FLAGS.has(name))
      throw new UsageError(`Unknown option --${name} of validate.`);
    if (value === undefined || value === "")
      throw new UsageError(`--${name} needs a value.`);
    if (flags.has(name))
      throw new UsageError(`--${name} is given more than once.`);
    flags.set(name, value);
  }
  const url = flags.get("url");
  if (url !== undefined && !/^https?:\/\/[^/]/.test(url))
    throw new UsageError(`--url must be an http(s) URL, not "${url}".`);
  if (url === undefined && flags.has("api-key"))
    throw new UsageError(
      "--api-key goes with --url: local sessions need none."
    );
  if (module === undefined && url === undefined)
    throw new UsageError(
      "validate needs the path of a module exporting environments, or --url <server>."
    );
  const raw = flags.get("tasks");
  const tasks = raw === undefined ? undefined : Number(raw);
  if (
    raw !== undefined &&
    (!/^\d+$/.test(raw) || tasks! < 1 || !Number.isSafeInteger(tasks))
  )
    throw new UsageError(`--tasks must be a whole number ≥ 1, not "${raw}".`);
  // The key of rollout's --url, from the same place; only a server needs one.
  const apiKey =
    url === undefined
      ? undefined
      : (flags.get("api-key") ?? environment.ROOST_API_KEY);
  const env = flags.get("env");
  return {
    command: "validate",
    ...(module === undefined ? {} : { module }),
    ...(url === undefined ? {} : { url: url.replace(/\/+$/, "") }),
    ...(apiKey ? { apiKey } : {}),
    ...(env === undefined ? {} : { env }),
    ...(tasks === undefined ? {} : { tasks })
  };
};
