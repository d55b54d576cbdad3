/**
 * @module An environment's MCP endpoint for stateless clients (2026-07-28).
 * There is no initialize to make a session at and no session header to
 * carry it, so a session travels in `_meta["dev.roost/session"]`: a
 * tools/call that names none starts one and answers its credential there,
 * and a request that sends it back continues that session. A client that
 * never sends it back gets a fresh episode per call, which is exactly
 * right for stateless tools; for a stateful environment it sends the
 * credential back, or talks to the session's own endpoint, whose URL
 * names it. Anything else (server/discover, tools/list, resources) is
 * answered from the environment itself, without making a session. A task
 * started here is polled with its id alone (task-capability.ts).
 */

import type { Context } from "hono";
import type { Environment } from "../../environment/define-environment";
import type { AppEnv } from "../../http/env";
import { gatewayTo } from "../../http/gateway";
import { signingKeys } from "../../http/secrets";
import {
  provenSession,
  sessionCredential
} from "../../http/session-credential";
import { JSONRPC_ERRORS, MCP_META } from "../../protocol";
import { isSessionGone } from "./failure";
import { liveViewOf } from "./live-view-token";
import { openState } from "./request-state";
import { mcpSessionToken } from "./session-token";
import { expectUse, startMcpSession } from "./start-session";
import { type McpRequest, rpcError } from "./streamable-http";
import { carriedTasks, environmentTarget, sessionTarget } from "./target";
import { carryTask, provenTask } from "./task-capability";
import { declaresTasks } from "./tasks-extension";

const toolNamed = (params: unknown): string | undefined => {
  const name = (params as { name?: unknown } | undefined)?.name;
  return typeof name === "string" ? name : undefined;
};

/** 200, not 404: a stateless client reads 404 as "this method is not served". */
const noSession = (id: string | number, message: string) =>
  rpcError(200, JSONRPC_ERRORS.invalidParams, message, id, {
    meta: MCP_META.session
  });

/** Carries the ids of tasks a session starts here (task-capability.ts). */
const carrier = async (c: Context<AppEnv>, sessionId: string) => {
  const keys = await signingKeys(c.env);
  const issuedAt = Date.now();
  return (taskId: string) => carryTask(keys, sessionId, taskId, issuedAt);
};

/** tasks/*: the id alone leads to its task, and to nothing else. */
const answerTask = async (
  c: Context<AppEnv>,
  environment: Environment,
  request: McpRequest
): Promise<Response> => {
  const taskId = (request.params as { taskId?: unknown } | undefined)?.taskId;
  const keys = await signingKeys(c.env);
  const proven =
    typeof taskId === "string" ? await provenTask(keys, taskId) : undefined;
  let durableId: DurableObjectId | undefined;
  try {
    durableId =
      proven === undefined
        ? undefined
        : c.env.SESSIONS.idFromString(proven.sessionId);
  } catch {
    durableId = undefined;
  }
  if (proven === undefined || durableId === undefined) {
    return await request.answer(environmentTarget(environment));
  }
  const session = gatewayTo(c.env.SESSIONS, durableId, proven.grant);
  const carry = (id: string) =>
    carryTask(keys, proven.sessionId, id, proven.grant.issuedAt);
  return await request.answer(
    carriedTasks(sessionTarget(c.get("registry"), session), carry, {
      carried: taskId as string,
      taskId: proven.taskId
    })
  );
};

/**
 * The session a resumed call's requestState names, if it is one Roost
 * sealed for this call; a state that is not is refused by the call itself.
 */
const stateSession = async (
  c: Context<AppEnv>,
  request: McpRequest
): Promise<string | undefined> => {
  const params = request.params as
    | { requestState?: unknown; name?: unknown }
    | undefined;
  if (
    typeof params?.requestState !== "string" ||
    typeof params.name !== "string"
  )
    return undefined;
  const state = await openState(await signingKeys(c.env), params.requestState, {
    method: request.method,
    name: params.name
  });
  return state?.session;
};

export const answerStateless = async (
  c: Context<AppEnv>,
  environment: Environment,
  request: McpRequest
): Promise<Response> => {
  const registry = c.get("registry");
  if (request.method.startsWith("tasks/")) {
    return await answerTask(c, environment, request);
  }
  // A call resumed with its requestState runs in the session it began in.
  const named =
    request.meta?.[MCP_META.session] ?? (await stateSession(c, request));
  if (named !== undefined) {
    const proven =
      typeof named === "string" ? await provenSession(c, named) : undefined;
    if (proven === undefined || typeof named !== "string") {
      return noSession(
        request.id,
        `Unknown _meta["${MCP_META.session}"]: send the value a tools/call answered, or leave it out to start a new session.`
      );
    }
    const session = gatewayTo(c.env.SESSIONS, proven.durableId, proven.grant);
    try {
      return await request.answer(
        carriedTasks(
          sessionTarget(
            registry,
            session,
            liveViewOf(c, proven.sessionId, proven.durableId)
          ),
          await carrier(c, proven.sessionId)
        ),
        { session: named }
      );
    } catch (error) {
      if (!isSessionGone(error)) throw error;
      return noSession(
        request.id,
        `The session _meta["${MCP_META.session}"] names has ended: leave it out to start a new one.`
      );
    }
  }
  const tool = toolNamed(request.params);
  const known = environment.toolSchemas.some((t) => t.function.name === tool);
  // A task-only tool, for a client that cannot take tasks: refused too.
  const refused =
    environment.tools.get(tool ?? "")?.taskSupport === "required" &&
    !declaresTasks(request.params);
  // Only a call of a tool the environment has makes a session; a bad call
  // is refused without one.
  if (request.method !== "tools/call" || !known || refused) {
    return await request.answer(environmentTarget(environment));
  }
  const started = await startMcpSession(c, environment, request.id);
  if (started instanceof Response) return started;
  const credential = sessionCredential(
    started.sessionId,
    await mcpSessionToken(c, started)
  );
  const answered = await request.answer(
    carriedTasks(
      sessionTarget(
        registry,
        started.session,
        liveViewOf(c, started.sessionId, started.session.id)
      ),
      await carrier(c, started.sessionId)
    ),
    // The client continues the session by sending this back.
    { session: credential, resultMeta: { [MCP_META.session]: credential } }
  );
  await expectUse(started);
  return answered;
};
