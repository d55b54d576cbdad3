/** @module A session made for an MCP client of an environment: created, reset, and nothing left behind when that fails. */

import type { Context } from "hono";
import type { Environment } from "../../environment/define-environment";
import { resolveTask } from "../../environment/task";
import { RoostError } from "../../errors";
import type { AppEnv } from "../../http/env";
import { type StartedSession, startSession } from "../../http/gateway";
import { fromRoost } from "./failure";
import { rpcError } from "./streamable-http";

/**
 * The started session, or the JSON-RPC error (in a 200) that says why it
 * could not be: a refusal is the client's to read, not a transport failure.
 */
export const startMcpSession = async (
  c: Context<AppEnv>,
  environment: Environment,
  id: string | number
): Promise<StartedSession | Response> => {
  let started: StartedSession | undefined;
  try {
    started = await startSession(c, {
      environment: environment.name,
      // An MCP client has no way to give a task: the environment's default.
      task: resolveTask(environment, {})
    });
    await started.session.op("reset", {});
    return started;
  } catch (error) {
    // Nothing half-made outlives a failed start.
    await started?.session.op("destroy", {}).catch(() => undefined);
    if (!(error instanceof RoostError)) throw error;
    const rpc = fromRoost(error);
    return rpcError(
      200,
      rpc.code,
      `The session could not be started: ${rpc.message}`,
      id,
      rpc.data
    );
  }
};

/**
 * A client that starts a session and never comes back (a curl, a probe, a
 * stateless client's one call) must not leave it for the full idle TTL.
 * Best effort: the session stands either way, so a failure here only keeps
 * it longer.
 */
export const expectUse = async (started: StartedSession): Promise<void> => {
  await started.session.op("expectUse", {}).catch(() => undefined);
};
