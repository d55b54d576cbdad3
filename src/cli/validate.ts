/** @module `roost-edge validate`: every environment a module exports, checked on local sessions, as a report table. */

import {
  type Environment,
  formatReport,
  validateEnvironment
} from "../validate/index";
import { UsageError } from "./args";
import { importModule } from "./policies";
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

/** Runs the command: 0 when every check passed, 1 when one failed, 2 for a module without environments. */
export const runValidate = async (
  command: ValidateCommand,
  io: { stdout: (text: string) => void; log: (text: string) => void }
): Promise<number> => {
  let envs: Environment[];
  try {
    const loaded = await importModule(
      command.module,
      `"${command.module}" is not a module that loads`
    );
    envs = environmentsOf(loaded);
    if (envs.length === 0)
      throw new UsageError(
        `${command.module} exports no environment (defineEnvironment).`
      );
    if (command.env !== undefined) {
      envs = envs.filter((e) => e.name === command.env);
      if (envs.length === 0)
        throw new UsageError(
          `${command.module} exports no environment named "${command.env}".`
        );
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.log(`${error.message}\n`);
    return 2;
  }
  let failed = false;
  for (const env of envs) {
    const report = await validateEnvironment(env, {
      ...(command.tasks === undefined ? {} : { tasks: command.tasks })
    });
    io.stdout(formatReport(report));
    failed ||= !report.ok;
  }
  return failed ? 1 : 0;
};
