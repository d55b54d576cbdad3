// Every operation of the table, each run through the object's `op`: its
// answer parses with its output schema and it emits only the events it
// declares. The cases are keyed by the table's names, so an operation
// added to the table without a case here fails to typecheck, and one a
// case forgot fails the first test.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { toolCalls } from "../../src/messages/build";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import type { ForkCursor, ForkStart } from "../../src/session/fork-source";
import type {
  OperationInput,
  OperationName,
  OperationOutput
} from "../../src/session/operations";
import { gate as labGate } from "../fixtures/environments";
import {
  api,
  err,
  events,
  inside,
  ok,
  type SessionApi
} from "./session-helpers";
import { OPERATIONS } from "./tables";

interface Session {
  id: DurableObjectId;
  stub: SessionApi;
}

/** Runs one operation and answers its value (the case's subject, or a step towards it). */
const run = async <N extends OperationName>(
  s: Session,
  name: N,
  input: OperationInput<N>,
  key?: string
): Promise<OperationOutput<N>> =>
  ok(await s.stub.op(name, input, SERVER_GRANT, key)) as OperationOutput<N>;

const open = async (environment: string): Promise<Session> => {
  const id = env.SESSIONS.newUniqueId();
  const s = { id, stub: api(env.SESSIONS.get(id)) };
  await run(s, "create", {
    sessionId: id.toString(),
    environment,
    task: undefined
  });
  return s;
};

/** A lab session mid-episode, with one store key (t/k) to read and edit. */
const lab = async (): Promise<Session> => {
  const s = await open("lab");
  await run(s, "reset", {});
  await run(s, "addEntry", { tool: "t", name: "k", objects: [{ a: 1 }] });
  return s;
};

/** A forest session (its scripted model runs trees) with a run started. */
const forest = async (): Promise<Session & { runId: string }> => {
  const s = await open("forest");
  await run(s, "reset", {});
  const { run_id } = await run(s, "startRun", { prompt: "multi" });
  return { ...s, runId: run_id };
};

/** A fork of `source` into one new object, step by step as http/fork-driver.ts drives it. */
const forkSteps = async (source: Session) => {
  const answers: Partial<Record<OperationName, unknown>> = {};
  const start = (await run(source, "forkBegin", { count: 1 })) as ForkStart;
  answers.forkBegin = start;
  if (start.replay) throw new Error("a first fork is never a replay");
  const copyId = env.SESSIONS.newUniqueId();
  const copy = { id: copyId, stub: api(env.SESSIONS.get(copyId)) };
  answers.importBegin = await run(copy, "importBegin", {
    sessionId: copyId.toString(),
    origin: start.begun.origin
  });
  for (let cursor: ForkCursor = { table: 0, after: 0 }; ; ) {
    const chunk = await run(source, "forkChunk", {
      snap: start.begun.snap,
      cursor
    });
    answers.forkChunk ??= chunk;
    if (chunk.parts.length > 0)
      answers.importChunk = await run(copy, "importChunk", {
        parts: chunk.parts
      });
    if (chunk.done) break;
    cursor = chunk.next;
  }
  answers.importEnd = await run(copy, "importEnd", {});
  answers.forkEnd = await run(source, "forkEnd", {
    count: 1,
    snap: start.begun.snap
  });
  return { answers, copy };
};

/** A first call of episode 1, as the gateway records one. */
const modelCallInput = () => ({
  episode: 1,
  record: {
    ms: 5,
    request: {
      params: { model: "m" },
      messages_from: 0,
      messages: [{ role: "user", content: "hi" }]
    },
    status: 200,
    response: {
      choices: [{ index: 0, message: { role: "assistant", content: "yo" } }]
    },
    tokens: {
      prompt_from: 0,
      prompt: [1, 2],
      completion: [3],
      logprobs: [-0.5]
    }
  },
  mark: { messages: 1, messagesHash: "h", tokens: 3, tokensHash: "t" },
  model: "m",
  broke: false
});

/** Lets a lab `wait` call past its gate, once it is waiting there. */
const openGate = async (s: Session, id: string) => {
  await inside(s.stub, () => labGate(id).started);
  await inside(s.stub, () => labGate(id).open());
};

/** Watches a session's log from now on (or from `before` events in). */
type Watch = { on(s: Session, before?: number): Promise<void> };
type Case = (watch: Watch) => Promise<unknown>;

/**
 * Each case prepares what its operation needs, names the session it runs
 * on (`on`, so its events are watched) and answers the operation's value.
 */
const CASES: Record<OperationName, Case> = {
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

const NAMES = Object.keys(OPERATIONS) as OperationName[];

/** Cases whose session has a run going, whose events are its start's. */
const ALONGSIDE: Partial<Record<OperationName, OperationName>> = {
  readRun: "startRun",
  cancelRun: "startRun",
  cancelTask: "startTask"
};

/** Every event type the operations under test emitted. */
const seen = new Set<string>();

describe("the operation table", () => {
  it("has a case for every operation, and no case for one it lacks", () => {
    expect(Object.keys(CASES).sort()).toEqual([...NAMES].sort());
  });

  it.each(NAMES)(
    "%s answers with its output schema and emits only the events it declares",
    async (name) => {
      const watched: { stub: SessionApi; before: number }[] = [];
      const value = await CASES[name]({
        on: async (s, before) => {
          const at = before ?? (await events(s.stub)).length;
          watched.push({ stub: s.stub, before: at });
        }
      });
      const op = OPERATIONS[name];
      const declared: readonly string[] = [
        ...op.events,
        ...(name in ALONGSIDE ? OPERATIONS[ALONGSIDE[name]!].events : [])
      ];
      if (op.output)
        expect(() => op.output!().parse(value), name).not.toThrow();
      for (const w of watched) {
        const emitted = (await events(w.stub))
          .slice(w.before)
          .map((e) => e.type as string);
        for (const t of emitted) seen.add(t);
        expect(
          emitted.filter((t) => !declared.includes(t)),
          `${name} emitted events it does not declare`
        ).toEqual([]);
      }
    }
  );

  it("watched every kind of write, so the checks above had teeth", () => {
    for (const type of [
      "reset",
      "step",
      "tool.started",
      "result",
      "tool.finished",
      "store.changed",
      "state.changed",
      "message",
      "forked"
    ])
      expect(seen, type).toContain(type);
  });
});

describe("dispatch", () => {
  it("parses every input with its operation's schema, whoever calls, and a refused input changes nothing", async () => {
    const s = await lab();
    const before = await run(s, "status", {});
    const bad = err(
      await s.stub.op("step", { action: 5 } as never, SERVER_GRANT, "key-1")
    );
    expect(bad).toMatchObject({ code: "invalid_request" });
    expect(bad.message).toContain("action");
    const { last_used_at: _a, ...was } = before;
    const { last_used_at: _b, ...now } = await run(s, "status", {});
    expect(now).toEqual(was);
    // The key was not bound to the refused input.
    const step = await run(
      s,
      "step",
      { action: toolCalls({ name: "bump", arguments: {} }) },
      "key-1"
    );
    expect(step.done).toBe(false);
  });

  it("refuses a name that is not in the table", async () => {
    const s = await lab();
    for (const name of ["nope", "toString", "__proto__"]) {
      expect(
        err(await s.stub.op(name as never, {} as never, SERVER_GRANT))
      ).toMatchObject({
        code: "invalid_request"
      });
    }
  });
});
