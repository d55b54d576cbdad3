/** @module `roost-edge validate`: every environment a module exports (or a server lists), checked on local or server sessions, as a report table. */

import { RoostError } from "../errors";
import {
  type Environment,
  formatReport,
  validateEnvironment,
  validateServer
} from "../validate/index";
import { UsageError } from "./args";
import { importModule } from "./import-module";
import type { ValidateCommand } from "./validate-args";

/** What the module exports that `defineEnvironment` made, by export name order. */
const environmentsOf = (loaded: Record<string, unknown>): Environment[] => {
  const found = Object.values(loaded).filter(
    (v): v is Environment =>
      typeof v === "object" &&
      v !== null &&
      (v as { kind?: unknown }).kind === "environment"
  );
  // `export default env` beside `export const env` is one environment.
  return [...new Set(found)];
};

/** The module's environments, `--env` only when given. */
const loadEnvironments = async (
  module: string,
  only: string | undefined
): Promise<Environment[]> => {
  const loaded = await importModule(
    module,
    `"${module}" is not a module that loads`
  );
  const envs = environmentsOf(loaded);
  if (envs.length === 0)
    throw new UsageError(
      `${module} exports no environment (defineEnvironment).`
    );
  if (only === undefined) return envs;
  const picked = envs.filter((e) => e.name === only);
  if (picked.length === 0)
    throw new UsageError(`${module} exports no environment named "${only}".`);
  return picked;
};

type Io = { stdout: (text: string) => void; log: (text: string) => void };

/**
 * Runs the command: 0 when every check passed, 1 when one failed or the
 * server could not be used, 2 for a bad module or an environment that is
 * not there.
 */
export const runValidate = async (
  command: ValidateCommand,
  io: Io
): Promise<number> => {
  let envs: Environment[] | undefined;
  try {
    if (command.module !== undefined)
      envs = await loadEnvironments(command.module, command.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.log(`${error.message}\n`);
    return 2;
  }
  const options = command.tasks === undefined ? {} : { tasks: command.tasks };
  if (command.url === undefined) {
    let failed = false;
    for (const env of envs ?? []) {
      const report = await validateEnvironment(env, options);
      io.stdout(formatReport(report));
      failed ||= !report.ok;
    }
    return failed ? 1 : 0;
  }
  return runOnServer(command, command.url, envs, options, io);
};

const runOnServer = async (
  command: ValidateCommand,
  url: string,
  envs: Environment[] | undefined,
  options: { tasks?: number },
  io: Io
): Promise<number> => {
  let failed = false;
  try {
    await validateServer({
      ...options,
      url,
      ...(command.apiKey === undefined ? {} : { apiKey: command.apiKey }),
      ...(envs === undefined ? {} : { environments: envs }),
      ...(command.env === undefined ? {} : { names: [command.env] }),
      onReport: (report) => {
        io.stdout(formatReport(report));
        failed ||= !report.ok;
      }
    });
  } catch (error) {
    // An environment the server does not list is a bad command line; a
    // server that cannot be used (RoostClientError) is main's to report.
    if (error instanceof RoostError && error.code === "not_found") {
      io.log(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  return failed ? 1 : 0;
};
