/**
 * @module Sessions for the operation table's cases, driven through the
 * object's `op` alone: opened, a lab mid-episode, a forest with a run, a
 * fork step by step, a model call's input, a lab gate opened.
 */

import { env } from "cloudflare:test";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import type { ForkCursor, ForkStart } from "../../src/session/fork-source";
import type {
  OperationInput,
  OperationName,
  OperationOutput
} from "../../src/session/operations";
import { gate as labGate } from "../fixtures/environments";
import { api, inside, ok, type SessionApi } from "./session-helpers";

export interface Session {
  id: DurableObjectId;
  stub: SessionApi;
}

/** Runs one operation and answers its value (the case's subject, or a step towards it). */
export const run = async <N extends OperationName>(
  s: Session,
  name: N,
  input: OperationInput<N>,
  key?: string
): Promise<OperationOutput<N>> =>
  ok(await s.stub.op(name, input, SERVER_GRANT, key)) as OperationOutput<N>;

export const open = async (environment: string): Promise<Session> => {
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
export const lab = async (): Promise<Session> => {
  const s = await open("lab");
  await run(s, "reset", {});
  await run(s, "addEntry", { tool: "t", name: "k", objects: [{ a: 1 }] });
  return s;
};

/** A forest session (its scripted model runs trees) with a run started. */
export const forest = async (): Promise<Session & { runId: string }> => {
  const s = await open("forest");
  await run(s, "reset", {});
  const { run_id } = await run(s, "startRun", { prompt: "multi" });
  return { ...s, runId: run_id };
};

/** A fork of `source` into one new object, step by step as http/fork-driver.ts drives it. */
export const forkSteps = async (source: Session) => {
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
export const modelCallInput = () => ({
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
export const openGate = async (s: Session, id: string) => {
  await inside(s.stub, () => labGate(id).started);
  await inside(s.stub, () => labGate(id).open());
};
