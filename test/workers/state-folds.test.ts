// State values and messages folded into the event log
// (storage/state-folds.ts): a step writes no row of the state or
// transcript tables, yet every reader sees its values and messages as
// before: a reload after the object died, retention trimming the log, a
// checkpoint, pages across the table and the folds, and forks now and at
// a past step, whose copies get the tables and not the log.
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/messages";
import type { ForkResponse } from "../../src/protocol";
import { readSessionRow } from "../../src/storage/session-row";
import { SqliteStateBackend } from "../../src/storage/state-backend";
import { foldsOf, MAX_FOLDED_STATE_CHARS } from "../../src/storage/state-folds";
import { fork, rows } from "./fork-helpers";
import {
  createResetSession,
  forkCopy,
  json,
  readable,
  step,
  type TestSession
} from "./helpers";
import {
  abort,
  fresh,
  inside,
  newResetSession,
  ok,
  stubOf,
  toolAction
} from "./session-helpers";

const stateRows = (sessionId: string) =>
  rows(sessionId, "SELECT key, value FROM state ORDER BY rowid");

const stateOf = async (s: TestSession) =>
  (await json<{ state: Record<string, unknown> }>(await s.call("/state")))
    .state;

/** The keys as the backend lists them, table and folds together. */
const keysOf = (sessionId: string) =>
  inside(stubOf(sessionId), (_o, state) => {
    const sql = state.storage.sql;
    const row = readSessionRow(sql)!;
    return new SqliteStateBackend(sql, row.episode, undefined, {
      folds: foldsOf(row)
    }).keys();
  });

describe("state values folded into the log", () => {
  it("keeps a step's values in its log row until a checkpoint, and reloads them exactly after an abort", async () => {
    const s = await createResetSession({ environment: "lab" });
    for (let i = 0; i < 3; i++) await step(s, "bump");
    await step(s, "note", { text: "a" });
    // No step wrote the table: the values are in the folds only.
    expect(await stateRows(s.session_id)).toEqual([]);
    expect(await keysOf(s.session_id)).toEqual(["count", "notes"]);
    const before = await readable(s);
    expect(await stateOf(s)).toMatchObject({ count: 3, notes: ["a"] });

    await abort(stubOf(s.session_id));
    expect(await readable(s)).toBe(before);
    expect(await keysOf(s.session_id)).toEqual(["count", "notes"]);

    // A step that streams before it commits writes the tables: the values
    // folded since the last checkpoint go in, first-set order kept.
    await step(s, "pause", { ms: 30 });
    expect(await stateRows(s.session_id)).toEqual([
      { key: "count", value: "4" },
      { key: "notes", value: '["a"]' }
    ]);
    const checkpointed = await readable(s);
    await abort(stubOf(s.session_id));
    expect(await readable(s)).toBe(checkpointed);
    await step(s, "bump");
    expect(await stateOf(s)).toMatchObject({ count: 5, notes: ["a"] });
  });

  it("writes a value too large to fold into the table at once", async () => {
    const s = await createResetSession({ environment: "lab" });
    await step(s, "bump");
    const long = "x".repeat(MAX_FOLDED_STATE_CHARS);
    await step(s, "note", { text: long });
    expect(await stateRows(s.session_id)).toEqual([
      { key: "count", value: "1" },
      { key: "notes", value: JSON.stringify([long]) }
    ]);
    await step(s, "bump");
    await abort(stubOf(s.session_id));
    expect(await stateOf(s)).toMatchObject({ count: 2, notes: [long] });
  });

  it("never lets retention trim a fold the table does not hold yet", async () => {
    const { id, stub } = await newResetSession();
    await inside(stub, (o) => o.runtime.setLimits({ eventsRetained: 20 }));
    for (let i = 0; i < 40; i++)
      ok(await stub.step({ action: toolAction("bump") }));
    await abort(stub);
    const read = ok(await fresh(id).readState());
    expect(read.state).toMatchObject({ count: 40 });
    ok(await fresh(id).step({ action: toolAction("bump") }));
    expect(ok(await fresh(id).readState()).state).toMatchObject({
      count: 41
    });
  });

  it("reads a session an earlier version folded, whose state table is whole, and counts folds from its next commit", async () => {
    const s = await createResetSession({ environment: "lab" });
    await step(s, "bump");
    await step(s, "bump");
    // As an earlier version left it: every value in the table, and folds
    // of the session row's fields alone, uncounted.
    await inside(stubOf(s.session_id), (_o, state) => {
      const sql = state.storage.sql;
      sql.exec(
        "INSERT INTO state (episode, key, value) VALUES (1, 'count', '2')"
      );
      sql.exec(
        "UPDATE events SET session = json_remove(session, '$.n', '$.state') WHERE session IS NOT NULL"
      );
    });
    await abort(stubOf(s.session_id));
    expect(await stateOf(s)).toMatchObject({ count: 2 });
    const table = () =>
      rows(s.session_id, "SELECT steps, as_of FROM session").then((r) => r[0]);
    const before = await table();
    // Its next commit writes the tables; the one after folds again.
    await step(s, "bump");
    const checkpointed = await table();
    expect(checkpointed).toMatchObject({ steps: 3 });
    expect(checkpointed!.as_of).not.toBe(before!.as_of);
    await step(s, "bump");
    expect(await table()).toEqual(checkpointed);
    await abort(stubOf(s.session_id));
    expect(await stateOf(s)).toMatchObject({ count: 4 });
    expect(await stateRows(s.session_id)).toEqual([
      { key: "count", value: "3" }
    ]);
  });

  it("gives a fork the values folded since the checkpoint, now and at a past step", async () => {
    const s = await createResetSession({ environment: "branchy" });
    await step(s, "put", { key: "a", n: 1 });
    await step(s, "note", { text: "x" });
    await step(s, "put", { key: "b", n: 2 });
    await step(s, "note", { text: "y" });
    expect(await stateRows(s.session_id)).toEqual([]);
    const forkAt = async (body: object) => {
      const res = await fork(s, { count: 1, ...body });
      expect(res.status, await res.clone().text()).toBe(201);
      return forkCopy((await json<ForkResponse>(res)).sessions[0]!, "branchy");
    };
    const now = await forkAt({});
    expect(await stateOf(now)).toEqual({ count: 2, last: "y" });
    expect(await stateRows(now.session_id)).toEqual([
      { key: "count", value: "2" },
      { key: "last", value: '"y"' }
    ]);
    const past = await forkAt({ step: 2 });
    expect(await stateOf(past)).toEqual({ count: 1, last: "x" });
    // Each goes on from there, and after an abort reads the same.
    await step(now, "put", { key: "c", n: 3 });
    await step(past, "put", { key: "c", n: 3 });
    await abort(stubOf(now.session_id));
    await abort(stubOf(past.session_id));
    expect(await stateOf(now)).toEqual({ count: 3, last: "y" });
    expect(await stateOf(past)).toEqual({ count: 2, last: "x" });
    expect(await stateOf(s)).toEqual({ count: 2, last: "y" });
  });

  it("reads a branchable copy's row and state from its tables, not from the folds of the history it carries", async () => {
    const s = await createResetSession({ environment: "branchy" });
    await step(s, "note", { text: "folded" });
    // Too large to fold: this step writes the tables, so the source's
    // newest fold is the first step's, older than its tables.
    const long = "y".repeat(MAX_FOLDED_STATE_CHARS);
    await step(s, "note", { text: long });
    const res = await fork(s, { count: 1 });
    expect(res.status).toBe(201);
    const copy = forkCopy(
      (await json<ForkResponse>(res)).sessions[0]!,
      "branchy"
    );
    expect(await stateOf(copy)).toEqual({ count: 0, last: long });
    expect(await json(await copy.call(""))).toMatchObject({ steps: 2 });
    await abort(stubOf(copy.session_id));
    expect(await stateOf(copy)).toEqual({ count: 0, last: long });
    await step(copy, "put", { key: "z", n: 1 });
    expect(await stateOf(copy)).toEqual({ count: 1, last: long });
    expect(await json(await copy.call(""))).toMatchObject({ steps: 3 });
  });
});

/** Each transcript row: the index of its first message and of its last. */
const runRows = (sessionId: string) =>
  rows(
    sessionId,
    "SELECT id - episode * 4294967296 AS first, last FROM transcript_runs ORDER BY id"
  );

const messagesOf = async (s: TestSession, query = "?limit=1000") =>
  json<{ messages: Message[]; total: number; next_cursor?: string }>(
    await s.call(`/messages${query}`)
  );

/** Every message, read a page of one at a time. */
const pagedOneByOne = async (s: TestSession): Promise<Message[]> => {
  const all: Message[] = [];
  let cursor: string | undefined = "0";
  while (cursor !== undefined) {
    const page = await messagesOf(s, `?limit=1&cursor=${cursor}`);
    all.push(...page.messages);
    cursor = page.next_cursor;
  }
  return all;
};

const asOf = (sessionId: string) =>
  rows(sessionId, "SELECT as_of FROM session").then((r) => r[0]!.as_of);

describe("messages folded into the log", () => {
  it("keeps a step's messages in its log row, reads them after the table's in order, and reloads them exactly after an abort", async () => {
    const s = await createResetSession({ environment: "lab" });
    // The reset's messages ride in its log row too.
    expect(await runRows(s.session_id)).toEqual([]);
    const { total: first } = await messagesOf(s);
    for (let i = 0; i < 3; i++) await step(s, "bump");
    // No step wrote the table: its messages are in the folds only.
    expect(await runRows(s.session_id)).toEqual([]);
    const all = await messagesOf(s);
    expect(all.total).toBe(first + 6);
    expect(all.messages.map((m) => m.role).slice(first)).toEqual(
      Array(3).fill(["assistant", "tool"]).flat()
    );
    expect(await pagedOneByOne(s)).toEqual(all.messages);
    const from = await messagesOf(s, `?limit=3&cursor=${first + 1}`);
    expect(from.messages).toEqual(all.messages.slice(first + 1, first + 4));
    await abort(stubOf(s.session_id));
    expect(await messagesOf(s)).toEqual(all);
    // A step that streams before it commits writes the tables: the folded
    // messages and its own go in as one run, after the table's.
    await step(s, "pause", { ms: 30 });
    expect(await runRows(s.session_id)).toEqual([
      { first: 0, last: first + 7 }
    ]);
    const checkpointed = await messagesOf(s);
    expect(checkpointed.messages.slice(0, first + 6)).toEqual(all.messages);
    await abort(stubOf(s.session_id));
    expect(await messagesOf(s)).toEqual(checkpointed);
  });

  it("writes messages too large to fold into the table after the folded ones, and folds the step's state still", async () => {
    const s = await createResetSession({ environment: "lab" });
    const { total: first } = await messagesOf(s);
    const checkpoint = await asOf(s.session_id);
    await step(s, "bump");
    await step(s, "bump", { key: "k".repeat(MAX_FOLDED_STATE_CHARS) });
    // The reset's and both steps' messages in one run; the session and
    // state tables as they were: the step's state value and fields rode
    // in its fold.
    expect(await runRows(s.session_id)).toEqual([
      { first: 0, last: first + 3 }
    ]);
    expect(await asOf(s.session_id)).toBe(checkpoint);
    expect(await stateRows(s.session_id)).toEqual([]);
    await step(s, "bump");
    const all = await messagesOf(s);
    expect(all.total).toBe(first + 6);
    expect(all.messages[first + 2]).toMatchObject({ role: "assistant" });
    expect(await pagedOneByOne(s)).toEqual(all.messages);
    await abort(stubOf(s.session_id));
    expect(await messagesOf(s)).toEqual(all);
    expect(await stateOf(s)).toMatchObject({ count: 3 });
  });

  it("gives a fork every folded message in its transcript table, and the source reads the same after", async () => {
    const s = await createResetSession({ environment: "branchy" });
    await step(s, "put", { key: "a", n: 1 });
    await step(s, "note", { text: "x" });
    const source = await messagesOf(s);
    const res = await fork(s, { count: 1 });
    expect(res.status, await res.clone().text()).toBe(201);
    const copy = forkCopy(
      (await json<ForkResponse>(res)).sessions[0]!,
      "branchy"
    );
    expect(await messagesOf(copy)).toEqual(source);
    expect((await runRows(copy.session_id)).at(-1)?.last).toBe(
      source.total - 1
    );
    // The source's table now holds them too; its next fold follows them.
    await step(s, "note", { text: "y" });
    await step(copy, "note", { text: "z" });
    await abort(stubOf(s.session_id));
    await abort(stubOf(copy.session_id));
    const after = await messagesOf(s);
    expect(after.messages.slice(0, source.total)).toEqual(source.messages);
    expect(after.total).toBe(source.total + 2);
    expect(await pagedOneByOne(s)).toEqual(after.messages);
    expect((await messagesOf(copy)).messages.slice(0, source.total)).toEqual(
      source.messages
    );
  });
});
