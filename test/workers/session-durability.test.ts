import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { gate, HIDDEN_SENTINEL } from "../fixtures/environments";
import {
  abort,
  err,
  events,
  fresh,
  inside,
  newResetSession,
  newSession,
  ok,
  runDueTimers,
  snapshot,
  toolAction
} from "./session-helpers";

describe("durability", () => {
  it("reloads exactly after the object is aborted between steps", async () => {
    const { id, stub } = await newResetSession("lab", { label: "reload" });
    ok(await stub.step({ action: toolAction("bump") }));
    ok(await stub.step({ action: toolAction("note", { text: "first" }) }));
    ok(await stub.step({ action: toolAction("finish", { reward: 2.5 }) }));
    const before = await snapshot(stub);
    expect(before.status).toMatchObject({
      steps: 3,
      reward: 2.5,
      return: 2.5,
      done: true,
      episode: 1
    });

    await abort(stub);
    const after = await snapshot(fresh(id));
    expect(after).toEqual(before);
  });

  it("leaves nothing of a step that was in flight when the object died", async () => {
    const { id, stub } = await newResetSession();
    ok(await stub.step({ action: toolAction("note", { text: "kept" }) }));
    const before = await snapshot(stub);

    // Gates live in the object's own context: workerd forbids settling a
    // promise across Durable Object contexts, so the test reaches in.
    const pending = stub.step({
      action: toolAction("wait", { gate: `mid-step-${id}` })
    });
    await inside(stub, () => gate(`mid-step-${id}`).started);
    const outcome = pending.then(
      () => "answered",
      () => "failed"
    );
    await abort(stub);
    expect(await outcome).toBe("failed");

    const again = fresh(id);
    expect(await snapshot(again)).toEqual(before);
    const hidden = await inside(again, (instance) =>
      instance.runtime.read((parts) => parts.hidden.get("waiting"))
    );
    expect(hidden).toBeUndefined();
    // The step's streamed events stay in the log, closed by step.aborted.
    const log = await events(again);
    const types = log.map((e) => e.type);
    expect(types).toContain("result");
    expect(types.at(-1)).toBe("step.aborted");
    const aborted = log.at(-1)!;
    expect(aborted.step).toBe(2);
    expect(
      log.filter(
        (e) => e.seq >= (aborted.first_seq as number) && e.type === "result"
      )
    ).toHaveLength(1);

    // _REF_IDs streamed by the aborted step are never handed out again.
    await inside(again, () => gate(`after-${id}`).open());
    const out = ok(
      await again.step({ action: toolAction("wait", { gate: `after-${id}` }) })
    );
    expect(out.observations[0]).toMatchObject({ content: "opened" });
    const entry: unknown = ok(
      await again.readStore({ tool: "wait", name: "before_wait", index: 0 })
    );
    expect(entry).toMatchObject({
      entry: { objects: [{ _REF_ID: "wait_before_wait_2_0" }] }
    });
  });

  it("serializes 20 concurrent steps: each step's messages stay together", async () => {
    const { stub } = await newResetSession();
    const outs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stub.step({ action: toolAction("note", { text: `n${i}` }) })
      )
    );
    expect(outs.every((r) => r.ok)).toBe(true);
    const { status, state, messages } = await snapshot(stub);
    expect(status).toMatchObject({ steps: 20 });
    expect((state.state.notes as string[]).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `n${i}`).sort()
    );
    const list = messages.messages;
    expect(list).toHaveLength(1 + 20 * 2);
    for (let i = 1; i < list.length; i += 2) {
      const action = list[i]!;
      const answer = list[i + 1]!;
      expect(action.role).toBe("assistant");
      expect(answer).toMatchObject({
        role: "tool",
        tool_call_id: (action as { tool_calls: { id: string }[] })
          .tool_calls[0]!.id
      });
    }
    const store = ok(
      await stub.readStore({ tool: "note", name: "notes", limit: 100 })
    );
    expect("entries" in store && store.entries).toHaveLength(20);
  });

  it("answers a step before reset and after done with episode_not_running", async () => {
    const { stub } = await newSession();
    expect(err(await stub.step({ action: toolAction("bump") })).code).toBe(
      "episode_not_running"
    );
    ok(await stub.reset({}));
    ok(await stub.step({ action: toolAction("finish", { reward: 1 }) }));
    expect(err(await stub.step({ action: toolAction("bump") })).code).toBe(
      "episode_not_running"
    );
  });

  it("makes a direct tool call change state without a transcript entry or reward", async () => {
    const { stub } = await newSession();
    expect(err(await stub.call({ tool: "bump", arguments: {} })).code).toBe(
      "episode_not_running"
    );
    ok(await stub.reset({}));
    const out = ok(
      await stub.call({ tool: "note", arguments: { text: "direct" } })
    );
    expect(out).toMatchObject({
      content: "noted direct",
      is_error: false,
      results: [{ tool: "note", name: "notes", index: 0 }]
    });
    const { status, messages, state } = await snapshot(stub);
    expect(status).toMatchObject({ steps: 0, return: 0 });
    expect(messages.messages).toHaveLength(1);
    expect(state.state.notes).toEqual(["direct"]);
    expect(err(await stub.call({ tool: "missing", arguments: {} })).code).toBe(
      "not_found"
    );
  });

  it("resets in O(1) and purges the old episode's rows in the background", async () => {
    const { stub } = await newResetSession();
    for (let i = 0; i < 3; i++)
      ok(await stub.step({ action: toolAction("note", { text: `x${i}` }) }));
    ok(await stub.reset({ task: { label: "second" } }));
    const { status, store, state, messages } = await snapshot(stub);
    expect(status).toMatchObject({ episode: 2, steps: 0 });
    expect(store).toEqual({ store: {} });
    expect(state.state).toEqual({ count: 0, notes: [] });
    expect(messages.messages).toEqual([
      { role: "user", content: "Lab ready: second" }
    ]);
    // One alarm purges up to a batch (1 000 rows): enough for this episode.
    // Due at once, it may be workerd's own alarm that runs it.
    await runDueTimers(stub);
    const leftover = await inside(
      stub,
      (_i, s) =>
        s.storage.sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM transcript_runs WHERE episode < 2"
          )
          .one().n
    );
    expect(leftover).toBe(0);
  });

  it("deletes everything after the idle TTL, checked by the alarm", async () => {
    const { stub } = await newResetSession();
    // Not idle yet: the alarm re-arms and the session stays.
    await inside(stub, (instance) => {
      instance.runtime.now = () => Date.now() + 60_000;
    });
    await runDurableObjectAlarm(stub.raw);
    expect(ok(await stub.status()).episode).toBe(1);
    await inside(stub, (instance) => {
      instance.runtime.now = () => Date.now() + 25 * 60 * 60 * 1000;
    });
    expect(await runDurableObjectAlarm(stub.raw)).toBe(true);
    expect(err(await stub.status()).code).toBe("not_found");
  });

  it("deletes all storage on destroy; later requests get not_found", async () => {
    const { stub } = await newResetSession();
    ok(await stub.destroy());
    expect(err(await stub.status()).code).toBe("not_found");
    expect(err(await stub.step({ action: toolAction("bump") })).code).toBe(
      "not_found"
    );
    const tables = await inside(stub, (_i, s) =>
      s.storage.sql
        .exec(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'"
        )
        .toArray()
    );
    expect(tables).toEqual([]);
  });

  it("never shows the hidden store in any read or event", async () => {
    const { stub } = await newResetSession();
    ok(await stub.step({ action: toolAction("secret") }));
    ok(await stub.call({ tool: "secret", arguments: {} }));
    const outputs = [
      await snapshot(stub),
      ok(await stub.frame()),
      await events(stub),
      ok(await stub.status())
    ];
    expect(JSON.stringify(outputs)).not.toContain(HIDDEN_SENTINEL);
    const kept = await inside(stub, (instance) =>
      instance.runtime.read((parts) => parts.hidden.get("sentinel"))
    );
    expect(kept).toEqual({ value: HIDDEN_SENTINEL });
  });
});

describe("large results", () => {
  it("streams a result bigger than an event row in ordered parts", async () => {
    const { stub } = await newResetSession();
    const big = "x".repeat(300_000);
    const objects = Array.from({ length: 8 }, (_, i) => ({ i, big }));
    const added = ok(
      await stub.addEntry({ tool: "bulk", name: "rows", objects })
    );
    expect(added.entry.objects).toHaveLength(8);
    const parts = (await events(stub)).filter((e) => e.type === "result");
    expect(parts.length).toBeGreaterThan(1);
    const joined = parts.flatMap((p) => p.objects as { i: number }[]);
    expect(joined.map((o) => o.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(parts.map((p) => (p.part as { index: number }).index)).toEqual(
      parts.map((_, i) => i)
    );
  });
});

describe("reads during a mutation", () => {
  it("answer while a step waits, and show only committed data", async () => {
    const { id, stub } = await newResetSession();
    const pending = stub.step({
      action: toolAction("wait", { gate: `reads-${id}` })
    });
    await inside(stub, () => gate(`reads-${id}`).started);
    // The step set count to 1000 and stored a result, but has not committed.
    expect(ok(await stub.status())).toMatchObject({ steps: 0 });
    expect(ok(await stub.readState()).state.count).toBe(0);
    expect(ok(await stub.readStore({}))).toEqual({ store: {} });
    await inside(stub, () => gate(`reads-${id}`).open());
    ok(await pending);
    expect(ok(await stub.readState()).state.count).toBe(1000);
  });
});
