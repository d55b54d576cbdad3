/** @module A hook failure seen from the session: logged with where it happened, its stack answered in development. */

import { hookFailureOf, withStack } from "../environment/hook-failure";
import type { SessionShared } from "./shared";

/**
 * What the caller of operation `name` gets for `error`: a hook failure is
 * logged (session, episode, the step it was, the author's stack; the
 * operator's logs are where a production stack goes) and, in development
 * only, answered with its stack in `details.stack`. Any other error passes
 * as it is. The commit already left the session as it was.
 */
export const explainFailure = async (
  shared: SessionShared,
  name: string,
  error: unknown
): Promise<unknown> => {
  const failure = hookFailureOf(error);
  if (failure === undefined) return error;
  const row = shared.loadRow();
  const where =
    row === undefined
      ? ""
      : ` (session ${row.sessionId}, episode ${
          name === "reset" ? row.episode + 1 : row.episode
        }, ${name === "step" ? `step ${row.steps + 1}` : name})`;
  const { hook, environment } = failure.details;
  const thrown = failure.thrown.stack;
  const stack =
    thrown !== undefined && shared.mapStack !== undefined
      ? await shared.mapStack(thrown)
      : thrown;
  console.error(
    `Roost: the ${hook} hook of environment "${environment}" threw${where}; the session is left as it was:\n${stack ?? failure.thrown.message}`
  );
  return shared.dev && stack !== undefined ? withStack(error, stack) : error;
};
