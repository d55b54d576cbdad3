/** @module `roost-edge validate`'s command line: a module of environments, which of them, how many tasks. */

import { UsageError } from "./args";

export interface ValidateCommand {
  command: "validate";
  /** The ES module (path) exporting the environments. */
  module: string;
  /** Only this environment of the module; default all it exports. */
  env?: string;
  /** Tasks per split the oracle and floors play. */
  tasks?: number;
}

export const VALIDATE_COMMAND = `  roost-edge validate <module> [--env <name>] [--tasks <n>]
                                              check the environments a module
                                              exports before training on them`;

export const VALIDATE_OPTIONS = `Options of validate (runs in this process, on local sessions; no server):
  --env <name>          validate only this environment of the module
  --tasks <n>           tasks per split the oracle and the floors play
                        (default 5); the reset check tries up to 200 per split
Prints PASS, FAIL, SKIP or a mean return per check (determinism, isolation,
no leakage, oracle, floors, contract) and exits 1 when any check fails.
What each check means and what to do when it fails: docs/02-environments.md.`;

/** Reads `validate <module> [--env n] [--tasks n]`. */
export const parseValidateArgs = (rest: readonly string[]): ValidateCommand => {
  let module: string | undefined;
  let env: string | undefined;
  let tasks: number | undefined;
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
    if (name !== "env" && name !== "tasks")
      throw new UsageError(`Unknown option --${name} of validate.`);
    if (value === undefined || value === "")
      throw new UsageError(`--${name} needs a value.`);
    if (name === "env") env = value;
    else {
      tasks = Number(value);
      if (!/^\d+$/.test(value) || tasks < 1 || !Number.isSafeInteger(tasks))
        throw new UsageError(
          `--tasks must be a whole number ≥ 1, not "${value}".`
        );
    }
  }
  if (module === undefined)
    throw new UsageError(
      "validate needs the path of a module exporting environments."
    );
  return {
    command: "validate",
    module,
    ...(env === undefined ? {} : { env }),
    ...(tasks === undefined ? {} : { tasks })
  };
};
