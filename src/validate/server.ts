/**
 * @module `validateServer`: the checks over a running server's sessions,
 * for the environments it lists, with their modules' oracles when given.
 */

import { createClient } from "../client/http";
import type { FetchLike } from "../client/request";
import type { Environment } from "../environment/define-environment";
import { RoostError } from "../errors";
import { httpTarget } from "./http-target";
import type { ValidationReport } from "./report";
import { runChecks, type ValidateOptions } from "./run";
import { serverLeakage } from "./server-leakage";

export interface ServerValidateOptions extends ValidateOptions {
  /** The server, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** Sent where sessions are created (needed when the server sets ROOST_API_KEYS). */
  apiKey?: string;
  /**
   * The environments' code (a module's exports): each is matched to the
   * server's environment of its name, and only those are validated
   * (unless `names` picks). Their oracles run against the server's sessions.
   */
  environments?: readonly Environment[];
  /** Validate only these of the server's environments. */
  names?: readonly string[];
  fetch?: FetchLike;
  /** Called with each report as it is made, before the next begins. */
  onReport?(report: ValidationReport): void;
}

/**
 * Validates environments on a server: its listing names them, each check
 * plays on sessions made there, and the sessions are deleted afterwards.
 * Throws a RoostError (`not_found`) when a named environment, or one of
 * `environments`, is not on the server; the checks' failures are in the
 * reports.
 *
 * @example
 * const reports = await validateServer({ url: "http://127.0.0.1:8787", environments: [calculator] });
 */
export const validateServer = async (
  options: ServerValidateOptions
): Promise<ValidationReport[]> => {
  const fetch: FetchLike =
    options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const client = createClient({
    baseUrl: options.url,
    fetch,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey })
  });
  const listed = await client.environments();
  const byName = new Map(listed.map((info) => [info.name, info]));
  const code = new Map((options.environments ?? []).map((e) => [e.name, e]));
  const names =
    options.names ??
    (options.environments === undefined
      ? listed.map((info) => info.name)
      : [...code.keys()]);
  const missing = names.filter((n) => !byName.has(n));
  if (missing.length > 0)
    throw new RoostError(
      "not_found",
      `${client.baseUrl} has no environment named ${missing.map((n) => `"${n}"`).join(", ")}; it has ${listed.map((i) => i.name).join(", ") || "none"}.`,
      { environments: missing }
    );
  const wire = {
    baseUrl: client.baseUrl,
    fetch,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey })
  };
  const reports: ValidationReport[] = [];
  for (const name of names) {
    const target = httpTarget(client, byName.get(name)!, code.get(name));
    const report = await runChecks(
      target,
      (task, maxSteps) => serverLeakage(wire, target, task, maxSteps),
      options
    );
    options.onReport?.(report);
    reports.push(report);
  }
  return reports;
};
