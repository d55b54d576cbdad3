/**
 * @module What a transport needs to reach one operation (`Reach`), and the
 * session `prepare` makes for it: created with the scope asked for, reset,
 * a store key written, then a step, a task or a run if the reach needs one.
 * The table of reaches is op-reaches.case.ts.
 */

import { env } from "cloudflare:test";
import type { toolCalls } from "../../src/messages/build";
import { type Scope, SERVER_GRANT } from "../../src/protocol/scopes";
import { gate } from "../fixtures/environments";
import { createSession, type TestSession, withScope } from "./helpers";
import { api, inside, ok, type SessionApi } from "./session-helpers";

export interface Prepared {
  s: TestSession;
  stub: SessionApi;
  runId?: string;
  taskId?: string;
}

export type Input = Record<string, unknown>;

export interface Reach {
  environment: "lab" | "forest" | "regraded";
  /** The scope its transports' credential holds (control, the session's first token's, by default). */
  scope?: Scope;
  /** A step taken before the operation (a tool that keeps something). */
  before?: { action: ReturnType<typeof toolCalls> };
  /** A run going before the operation (the run reads need one). */
  withRun?: true;
  /** A task before the operation: ended, or held running at a gate (to cancel). */
  withTask?: "ended" | "held";
  input: (p: Prepared) => Input;
  /** The route's request, or why HTTP has none. */
  http:
    | {
        send: (p: Prepared) => Promise<Response>;
        /** What the route answers for the operation's value (the value itself by default). */
        answer?: (value: unknown) => unknown;
      }
    | string;
  /** An MCP request and the part of its answer that carries the value, or why MCP has none. */
  mcp:
    | {
        method: string;
        params: (p: Prepared) => object;
        answer: (result: McpResult) => unknown;
        value: (value: unknown) => unknown;
      }
    | string;
  /**
   * `answer`: the same value everywhere; `effects`: the same log and state
   * afterwards (a stream's route); `shape`: a value of the output schema
   * (a run's answer depends on how far it got).
   */
  compare: "answer" | "effects" | "shape";
}

export type McpResult = {
  content?: { text: string }[];
  tools?: { name: string }[];
  resources?: { name: string }[];
  contents?: { text: string }[];
  task?: { status: string };
  status?: string;
  tasks?: { status: string }[];
};

/** Gates of the tasks `prepare` held; released once a file's tests are done. */
const held: { id: string; stub: SessionApi }[] = [];
export const releaseHeldTasks = async () => {
  for (const { id, stub } of held.splice(0))
    await inside(stub, () => gate(id).open()).catch(() => undefined);
};

export const prepare = async (reach: Reach): Promise<Prepared> => {
  const created = await createSession({ environment: reach.environment });
  const s =
    reach.scope === undefined ? created : await withScope(created, reach.scope);
  const stub = api(env.SESSIONS.get(env.SESSIONS.idFromString(s.session_id)));
  ok(await stub.op("reset", {}, SERVER_GRANT));
  if (reach.environment === "lab")
    ok(
      await stub.op(
        "addEntry",
        { tool: "t", name: "k", objects: [{ a: 1 }] },
        SERVER_GRANT
      )
    );
  if (reach.before) ok(await stub.op("step", reach.before, SERVER_GRANT));
  if (reach.withTask !== undefined) {
    const id = `reach-${crypto.randomUUID()}`;
    const { task_id } = ok(
      await stub.op(
        "startTask",
        reach.withTask === "held"
          ? { tool: "wait", arguments: { gate: id } }
          : { tool: "bump", arguments: {} },
        SERVER_GRANT
      )
    );
    if (reach.withTask === "held") {
      held.push({ id, stub });
      await inside(stub, () => gate(id).started);
    } else ok(await stub.op("readTask", { task_id, wait: 30 }, SERVER_GRANT));
    return { s, stub, taskId: task_id };
  }
  if (!reach.withRun) return { s, stub };
  const { run_id } = ok(
    await stub.op("startRun", { prompt: "multi" }, SERVER_GRANT)
  );
  return { s, stub, runId: run_id };
};
