import { describe, expect, it } from "vitest";
import type { SnapshotFrame } from "../../src/client/index";
import type { EventOf, KeyInfo } from "../../src/protocol/index";
import { SnapshotRest } from "../../src/react/snapshot-rest";

// How useSession's store merges what a cut snapshot left out with the
// events that arrived while it was read: the races, driven by hand.

const AT = "2026-01-01T00:00:00.000Z";
const key = (name: string, entries: number, objects = entries): KeyInfo => ({
  tool: "t",
  name,
  entries,
  objects
});

const cut = (keys: KeyInfo[]): SnapshotFrame => ({
  type: "session.snapshot",
  status: {
    session_id: "s",
    environment: "e",
    episode: 1,
    steps: 0,
    reward: 0,
    return: 0,
    done: false,
    truncated: false,
    status: "running",
    created_at: AT
  },
  state: { a: 1 },
  keys,
  last_seq: 10,
  oldest_seq: 1,
  truncated: true,
  state_next_cursor: "1",
  keys_next_cursor: "k"
});

const result = (
  seq: number,
  name: string,
  index: number,
  objects = 1
): EventOf<"result"> => ({
  type: "result",
  seq,
  at: AT,
  episode: 1,
  tool: "t",
  name,
  index,
  objects: Array.from({ length: objects }, (_, i) => ({ i })),
  metadata: {},
  display: true
});

const written = (
  seq: number,
  k: string,
  value: number
): EventOf<"state.changed"> => ({
  type: "state.changed",
  seq,
  at: AT,
  episode: 1,
  key: k,
  value
});

const removed = (seq: number, name: string): EventOf<"store.changed"> => ({
  type: "store.changed",
  seq,
  at: AT,
  episode: 1,
  op: "remove",
  tool: "t",
  name
});

describe("SnapshotRest", () => {
  it("is nothing for a snapshot that was not cut", () => {
    const {
      truncated: _t,
      state_next_cursor: _s,
      keys_next_cursor: _k,
      ...whole
    } = cut([]);
    expect(SnapshotRest.of(whole)).toBeUndefined();
  });

  it("puts the rest after what the snapshot held, and before keys made since", () => {
    const rest = SnapshotRest.of(cut([key("held", 1)]))!;
    rest.note(result(11, "new", 0));
    const view = { state: { a: 1 }, keys: [key("held", 1), key("new", 1)] };
    expect(
      rest.merge(view, {
        state: { b: 2, c: 3 },
        keys: [key("r1", 4, 9), key("r2", 1)]
      })
    ).toEqual({
      state: { a: 1, b: 2, c: 3 },
      keys: [key("held", 1), key("r1", 4, 9), key("r2", 1), key("new", 1)]
    });
  });

  it("keeps a state value an event wrote while the rest was read", () => {
    const rest = SnapshotRest.of(cut([]))!;
    rest.note(written(11, "b", 20));
    expect(
      rest.merge({ state: { a: 1, b: 20 }, keys: [] }, { state: { b: 2 } })
        .state
    ).toEqual({ a: 1, b: 20 });
  });

  it("counts results the read had not seen yet on top of it, once", () => {
    const rest = SnapshotRest.of(cut([]))!;
    // Entry 1 was in the read (it had 2 entries); entry 2 came after it.
    rest.note(result(11, "r", 1, 2));
    rest.note(result(12, "r", 2, 5));
    const view = { state: {}, keys: [key("r", 3, 7)] };
    expect(rest.merge(view, { keys: [key("r", 2, 4)] }).keys).toEqual([
      key("r", 3, 9)
    ]);
  });

  it("takes the view's count for a key removed since the snapshot", () => {
    const rest = SnapshotRest.of(cut([]))!;
    rest.note(removed(11, "gone"));
    rest.note(removed(12, "again"));
    rest.note(result(13, "again", 0));
    const view = { state: {}, keys: [key("again", 1)] };
    expect(
      rest.merge(view, {
        keys: [key("gone", 5), key("again", 3), key("kept", 1)]
      }).keys
    ).toEqual([key("again", 1), key("kept", 1)]);
  });

  it("forgets the events of an aborted mutation", () => {
    const rest = SnapshotRest.of(cut([]))!;
    rest.note(written(11, "b", 20));
    rest.note(result(12, "r", 2, 5));
    rest.forget(11);
    expect(
      rest.merge(
        { state: { a: 1 }, keys: [] },
        { state: { b: 2 }, keys: [key("r", 2)] }
      )
    ).toEqual({ state: { a: 1, b: 2 }, keys: [key("r", 2)] });
  });

  it("gives a checkpoint only what no event touched", () => {
    const rest = SnapshotRest.of(cut([]))!;
    rest.note(result(12, "r", 2, 5));
    const checkpoint = { state: { a: 1 }, keys: [] };
    expect(
      rest.merge(
        checkpoint,
        { state: { b: 2 }, keys: [key("r", 2), key("s", 1)] },
        true
      )
    ).toEqual({ state: { a: 1, b: 2 }, keys: [key("s", 1)] });
  });
});
