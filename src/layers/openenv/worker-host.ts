/**
 * @module A channel run in the worker, for OpenEnv's HTTP routes: each
 * frame's operations go to the session's object by RPC, as every HTTP
 * route's do. Sockets run in the object instead (object-socket.ts).
 */

import type { Context } from "hono";
import type { AppEnv } from "../../http/env";
import { type StartedSession, startSession } from "../../http/gateway";
import type { ChannelOptions } from "./bases";
import type { ChannelHost, HostSession } from "./channel";
import { answerMcpFrame } from "./mcp-frame";

const hostSession = (
  c: Context<AppEnv>,
  started: StartedSession
): HostSession => ({
  sessionId: started.sessionId,
  token: async () => started.token,
  op: (name, input) => started.session.op(name, input),
  mcp: (message) =>
    answerMcpFrame(message, c.get("registry"), started.session, c.env)
});

/** The host, and the session its frames made or re-attached to (for the route's answer and its clean-up). */
export const workerHost = (
  c: Context<AppEnv>,
  options: ChannelOptions
): ChannelHost & { started(): StartedSession | undefined } => {
  let started = options.session;
  let session = started && hostSession(c, started);
  return {
    environment: options.environment,
    limits: c.get("limits"),
    origin: new URL(c.req.url).origin,
    session: () => session,
    create: async (task) => {
      started = await startSession(c, {
        environment: options.environment.name,
        task
      });
      session = hostSession(c, started);
      return session;
    },
    started: () => started
  };
};
