/**
 * @module A case for every operation of the table, keyed by its name, so
 * an operation added without one fails to typecheck: each prepares what its
 * operation needs, names the session it runs on so its events are watched,
 * and answers the operation's value. operations.test.ts runs them.
 */

import { env } from "cloudflare:test";
import { expect } from "vitest";
import { toolCalls } from "../../src/messages/build";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import type { ForkStart } from "../../src/session/fork-source";
import type { OperationName } from "../../src/session/operations";
import {
  forest,
  forkSteps,
  lab,
  modelCallInput,
  open,
  openGate,
  run,
  type Session
} from "./operation-sessions";
import { api, err, events, ok } from "./session-helpers";

/** Watches a session's log from now on (or from `before` events in). */
export type Watch = { on(s: Session, before?: number): Promise<void> };
export type Case = (watch: Watch) => Promise<unknown>;

/**
 * Each case prepares what its operation needs, names the session it runs
 * on (`on`, so its events are watched) and answers the operation's value.
 */
export const CASES: Record<OperationName, Case> = {
  create: async () => {
    const id = env.SESSIONS.newUniqueId();
    return run({ id, stub: api(env.SESSIONS.get(id)) }, "create", {
      sessionId: id.toString(),
      environment: "lab",
      task: { label: "x" }
    });
  },
  status: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "status", {});
  },
  expectUse: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "expectUse", {});
  },
  destroy: async () => run(await lab(), "destroy", {}),
  events: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "events", { after: 0, limit: 10 });
  },
  reset: async (w) => {
    const s = await open("lab");
    await w.on(s);
    return run(s, "reset", {});
  },
  step: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "step", {
      action: toolCalls({ name: "note", arguments: { text: "a" } })
    });
  },
  call: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "call", { tool: "bump", arguments: {} });
  },
  tools: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "tools", {});
  },
  readStore: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "readStore", { tool: "t", name: "k" });
  },
  storeKeys: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "storeKeys", {});
  },
  addEntry: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "addEntry", { tool: "t", name: "k2", objects: [{ b: 1 }] });
  },
  replaceEntry: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "replaceEntry", {
      tool: "t",
      name: "k",
      index: 0,
      objects: [{ a: 2 }]
    });
  },
  removeEntry: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "removeEntry", { tool: "t", name: "k" });
  },
  readHidden: async (w) => {
    const s = await lab();
    await run(s, "step", {
      action: toolCalls({ name: "secret", arguments: {} })
    });
    await w.on(s);
    // The hidden store is grade's alone: the table's control grant may not.
    const grade = { scope: "grade", issuedAt: 0 } as const;
    return ok(await s.stub.op("readHidden", {}, grade));
  },
  rescore: async (w) => {
    const s = await open("regraded");
    await run(s, "reset", {});
    await run(s, "step", {
      action: toolCalls({ name: "guess", arguments: { n: 7 } })
    });
    await w.on(s);
    // It replays functions of the hidden store: grade's, as reading it is.
    const grade = { scope: "grade", issuedAt: 0 } as const;
    return ok(await s.stub.op("rescore", { rubric: "rubric" }, grade));
  },
  modelAdmit: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "modelAdmit", {
      max_calls: 10,
      max_tokens: 1000,
      max_bytes: 100_000
    });
  },
  modelRecord: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "modelRecord", modelCallInput());
  },
  modelCalls: async (w) => {
    const s = await lab();
    await run(s, "modelRecord", modelCallInput());
    await w.on(s);
    return run(s, "modelCalls", {});
  },
  issueToken: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "issueToken", { scope: "observe", ttl_s: 60 });
  },
  revokeTokens: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "revokeTokens", { scope: "observe" });
  },
  readState: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "readState", {});
  },
  patchState: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "patchState", { key: "count", value: 5 });
  },
  messages: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "messages", {});
  },
  frame: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "frame", {});
  },
  startRun: async (w) => {
    const s = await open("forest");
    await run(s, "reset", {});
    await w.on(s);
    return run(s, "startRun", { prompt: "multi" });
  },
  startChat: async (w) => {
    const s = await open("forest");
    await run(s, "reset", {});
    await w.on(s);
    return run(s, "startChat", { prompt: "multi", chat_id: "c1" });
  },
  readRun: async (w) => {
    const s = await forest();
    await w.on(s);
    // Until the run ends, so every event of the run shows.
    return run(s, "readRun", { run_id: s.runId, wait: 30 });
  },
  cancelRun: async (w) => {
    const s = await forest();
    await w.on(s);
    return run(s, "cancelRun", { run_id: s.runId });
  },
  startTask: async (w) => {
    const s = await lab();
    await w.on(s);
    const started = await run(s, "startTask", { tool: "bump", arguments: {} });
    // Until the call ended, so its events show.
    await run(s, "readTask", { task_id: started.task_id, wait: 30 });
    return started;
  },
  readTask: async (w) => {
    const s = await lab();
    const { task_id } = await run(s, "startTask", {
      tool: "bump",
      arguments: {}
    });
    await run(s, "readTask", { task_id, wait: 30 });
    await w.on(s);
    return run(s, "readTask", { task_id });
  },
  listTasks: async (w) => {
    const s = await lab();
    const { task_id } = await run(s, "startTask", {
      tool: "bump",
      arguments: {}
    });
    await run(s, "readTask", { task_id, wait: 30 });
    await w.on(s);
    return run(s, "listTasks", {});
  },
  cancelTask: async (w) => {
    const s = await lab();
    const gate = `op-cancel-${crypto.randomUUID()}`;
    // One running (held at its gate) keeps the second waiting to cancel.
    await run(s, "startTask", { tool: "wait", arguments: { gate } });
    const { task_id } = await run(s, "startTask", {
      tool: "bump",
      arguments: {}
    });
    await w.on(s);
    const cancelled = await run(s, "cancelTask", { task_id });
    await openGate(s, gate);
    return cancelled;
  },
  updateTask: async (w) => {
    const s = await lab();
    const { task_id } = await run(s, "startTask", {
      tool: "bump",
      arguments: {}
    });
    await run(s, "readTask", { task_id, wait: 30 });
    await w.on(s);
    // It asked nothing: the answers change nothing.
    return run(s, "updateTask", { task_id, input_responses: { x: {} } });
  },
  answerClient: async (w) => {
    const s = await lab();
    await w.on(s);
    // No call asked: nothing waits for the answer.
    return run(s, "answerClient", {
      id: "roost-ask-none",
      answer: { result: {} }
    });
  },
  mcpClient: async (w) => {
    const s = await lab();
    await w.on(s);
    return run(s, "mcpClient", { capabilities: {}, log_level: "info" });
  },
  forkBegin: async () => (await forkSteps(await lab())).answers.forkBegin,
  forkChunk: async () => (await forkSteps(await lab())).answers.forkChunk,
  forkEnd: async () => (await forkSteps(await lab())).answers.forkEnd,
  importBegin: async () => (await forkSteps(await lab())).answers.importBegin,
  importChunk: async () => (await forkSteps(await lab())).answers.importChunk,
  importEnd: async (w) => {
    const { answers, copy } = await forkSteps(await lab());
    // A copy's log is the source's up to the fork, then importEnd's `forked`.
    const log = await events(copy.stub);
    await w.on(copy, log.findLastIndex((e) => e.type !== "forked") + 1);
    return answers.importEnd;
  },
  importAbort: async () => {
    const source = await lab();
    const start = (await run(source, "forkBegin", { count: 1 })) as ForkStart;
    if (start.replay) throw new Error("a first fork is never a replay");
    const id = env.SESSIONS.newUniqueId();
    const copy = { id, stub: api(env.SESSIONS.get(id)) };
    await run(copy, "importBegin", {
      sessionId: id.toString(),
      origin: start.begun.origin
    });
    const answer = await run(copy, "importAbort", {});
    // An aborted copy is no session.
    expect(err(await copy.stub.op("status", {}, SERVER_GRANT)).code).toBe(
      "not_found"
    );
    return answer;
  }
};
