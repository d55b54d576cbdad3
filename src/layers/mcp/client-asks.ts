/**
 * @module The two ways a tool asks its MCP client (tools/ask.ts), inside
 * the session. Live: the request goes out on the call's stream and the
 * client's answer, POSTed back like any message, is handed to the waiting
 * call here. Replayed: a stateless client's answers came with the call;
 * whatever is not among them ends the call as input-required.
 */

import type { JsonObject } from "../../json";
import type { SessionRuntime } from "../../session/runtime";
import {
  type CallerClient,
  type ClientRequest,
  InputRequired,
  MissingCapability,
  missingCapabilities
} from "../../tools/ask";

interface Pending {
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

/** The live asks of one object, by the request id the client answers with. */
const PENDING = new WeakMap<SessionRuntime, Map<string, Pending>>();

const pendingOf = (runtime: SessionRuntime): Map<string, Pending> => {
  let pending = PENDING.get(runtime);
  if (pending === undefined) {
    pending = new Map();
    PENDING.set(runtime, pending);
  }
  return pending;
};

/** A client's answer to a live ask: whether a call was waiting for it. */
export const answerAsk = (
  runtime: SessionRuntime,
  id: string,
  answer: { result: JsonObject } | { error: { code: number; message: string } }
): boolean => {
  const pending = pendingOf(runtime);
  const waiting = pending.get(id);
  if (waiting === undefined) return false;
  pending.delete(id);
  if ("result" in answer) waiting.resolve(answer.result);
  else
    waiting.reject(
      new Error(
        `The client refused: ${answer.error.message} (${answer.error.code})`
      )
    );
  return true;
};

const refuseMissing = (
  declared: JsonObject,
  requests: Record<string, ClientRequest>
) => {
  const missing = missingCapabilities(declared, requests);
  if (Object.keys(missing).length > 0) throw new MissingCapability(missing);
};

/**
 * A client asked over the call's stream: `send` writes each request, and
 * `close` gives up on any still unanswered once the call ended.
 */
export const liveClient = (
  runtime: SessionRuntime,
  capabilities: JsonObject,
  send: (id: string, request: ClientRequest) => void
): CallerClient & { close(): void } => {
  const mine = new Set<string>();
  return {
    capabilities,
    ask: async (requests) => {
      refuseMissing(capabilities, requests);
      const pending = pendingOf(runtime);
      const answers = await Promise.all(
        Object.entries(requests).map(
          ([name, request]) =>
            new Promise<[string, JsonObject]>((resolve, reject) => {
              const id = `roost-ask-${crypto.randomUUID()}`;
              mine.add(id);
              pending.set(id, {
                resolve: (result) => resolve([name, result]),
                reject
              });
              send(id, request);
            })
        )
      );
      return Object.fromEntries(answers);
    },
    close: () => {
      const pending = pendingOf(runtime);
      for (const id of mine) pending.delete(id);
    }
  };
};

/** A stateless client: its answers so far, and input-required for the rest. */
export const replayedClient = (
  capabilities: JsonObject,
  answers: Record<string, JsonObject>
): CallerClient => ({
  capabilities,
  ask: async (requests) => {
    refuseMissing(capabilities, requests);
    const unanswered = Object.entries(requests).filter(
      ([name]) => !Object.hasOwn(answers, name)
    );
    if (unanswered.length > 0) {
      throw new InputRequired(Object.fromEntries(unanswered));
    }
    return Object.fromEntries(
      Object.keys(requests).map((name) => [name, answers[name] as JsonObject])
    );
  }
});
