/**
 * @module What the fork tests share: a copy as a caller, the fork request,
 * what a client reads of a session, the rows of its SQLite, bindings that
 * record (and may wrap) the objects a fork makes, and a lab session
 * mid-episode to fork.
 */
import { env } from "cloudflare:test";
import type { ForkResponse } from "../../src/protocol";
import type { Grant } from "../../src/protocol/scopes";
import {
  createResetSession,
  forkCopy,
  json,
  send,
  step,
  type TestSession
} from "./helpers";
import { type api, inside, stubOf } from "./session-helpers";

/** A caller for one copy, like `createSession`'s. */
export const asSession = (
  copy: ForkResponse["sessions"][number]
): TestSession => forkCopy(copy, "lab");

export const fork = async (s: TestSession, body: object, headers = {}) =>
  s.call("/fork", send("POST", body, { ...headers }));

/** What a client reads of a session, without what must differ between copies. */
export const view = async (s: TestSession) => {
  const read = async (p: string) => json(await s.call(p));
  const {
    session_id: _id,
    created_at: _c,
    last_used_at: _u,
    ...status
  } = await read("");
  return {
    status,
    state: await read("/state"),
    store: await read("/environment?limit=1000"),
    messages: await read("/messages?limit=1000")
  };
};

export const rows = (sessionId: string, query: string) =>
  inside(stubOf(sessionId), (_, state) =>
    state.storage.sql.exec(query).toArray()
  );

export type Caller = Pick<ReturnType<typeof api>, "op">;

/** `real`, with `hook` run before each of its operations (to step, fail or abort between them). */
export const hooked = (
  real: Caller,
  hook: (name: string) => Promise<void> | void
): Caller => ({
  op: (async (name: string, input: unknown, grant: Grant, key?: string) => {
    await hook(name);
    return real.op(name as never, input as never, grant, key);
  }) as Caller["op"]
});

/** Bindings whose namespace records the ids a fork makes, and may wrap their stubs. */
export const recording = (
  wrap: (id: string, real: Caller) => Caller = (_, real) => real
) => {
  const made: string[] = [];
  const SESSIONS = {
    newUniqueId: () => {
      const id = env.SESSIONS.newUniqueId();
      made.push(id.toString());
      return id;
    },
    get: (id: DurableObjectId) =>
      wrap(id.toString(), env.SESSIONS.get(id) as unknown as Caller)
  };
  return { made, bindings: { ...env, SESSIONS } as unknown as typeof env };
};

/** What a source still keeps of its forks' snapshots: nothing once they ended. */
export const snapshotsLeft = (id: string) =>
  rows(
    id,
    "SELECT name FROM sqlite_master WHERE name LIKE '%roost_fork%' UNION ALL SELECT snap FROM fork_snapshots"
  );

/** A lab session mid-episode: store entries, state, hidden data and a transcript. */
export const midEpisode = async (): Promise<TestSession> => {
  const s = await createResetSession({ environment: "lab" });
  await step(s, "bump");
  await step(s, "note", { text: "shared" });
  await step(s, "secret");
  return s;
};
