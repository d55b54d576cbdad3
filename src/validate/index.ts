/**
 * @module `validateEnvironment`: the checks `roost-edge validate` runs
 * before anyone trains on an environment, over local sessions (no
 * server); `validateServer` runs them over a running server's sessions.
 */

import type { Environment } from "../environment/define-environment";
import { leakage } from "./leakage";
import type { ValidationReport } from "./report";
import { runChecks, type ValidateOptions } from "./run";
import { localTarget } from "./target";

export type { Environment } from "../environment/define-environment";
export {
  type CheckRow,
  formatReport,
  type Status,
  type ValidationReport
} from "./report";
export type { ValidateOptions } from "./run";
export {
  type ServerValidateOptions,
  validateServer
} from "./server";

/**
 * Runs every check on local sessions and returns the report; nothing is
 * thrown for a check that fails. What a local run cannot see (a fork,
 * OpenEnv frames, MCP listings, `/frame`, a session's SQLite) needs a
 * server: `validateServer`, or `roost-edge validate --url`.
 *
 * @example
 * const report = await validateEnvironment(calculator);
 * if (!report.ok) console.log(formatReport(report));
 */
export const validateEnvironment = (
  environment: Environment,
  options: ValidateOptions = {}
): Promise<ValidationReport> => {
  const target = localTarget(environment);
  return runChecks(
    target,
    (task, maxSteps) => leakage(environment, target, task, maxSteps),
    options
  );
};
