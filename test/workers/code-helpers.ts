/** @module Helpers for the code tool tests: a call, and everything a session holds, to compare. */

import {
  events,
  inside,
  newResetSession,
  ok,
  type SessionApi,
  snapshot
} from "./session-helpers";

/** A coder session (test/fixtures/code.ts) with its first episode running. */
export const coderSession = async () => (await newResetSession("coder")).stub;

/** Calls a code tool directly, as `POST /tools/:name` does; its content as text. */
export const runCode = async (
  stub: SessionApi,
  code: string,
  tool = "run_js"
) => {
  const out = ok(await stub.call({ tool, arguments: { code } }));
  const { content } = out;
  return {
    ...out,
    content: typeof content === "string" ? content : JSON.stringify(content)
  };
};

/** The tool's answer as the model reads it, parsed. */
export const answer = (content: string) =>
  JSON.parse(content) as { result?: unknown; stdout?: string; stderr?: string };

/**
 * Everything the session holds: what clients read (status, store, state,
 * transcript), the hidden store, and the event log but for the call's own
 * events (`tool.*`, and the updates it streamed, its error among them): a
 * call is announced whether or not it succeeds.
 */
export const holdings = async (stub: SessionApi) => ({
  ...(await snapshot(stub)),
  hidden: await inside(stub, (instance) =>
    instance.runtime.read((parts) =>
      Object.fromEntries(
        parts.hidden.keys().map((k) => [k, parts.hidden.get(k)])
      )
    )
  ),
  events: (await events(stub))
    .filter((e) => !e.type.startsWith("tool.") && e.call_id === undefined)
    .map(({ seq: _seq, at: _at, ...rest }) => rest)
});
