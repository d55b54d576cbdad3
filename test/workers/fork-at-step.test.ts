// Forking at a past step (issue 51): a branchable environment plays random
// actions (Results stored by a tool and by the model's code, keys removed,
// hidden values set and deleted, state changed, the transcript growing); after each step the test keeps
// everything a client can read, the hidden store included. A fork at any
// step gives copies that read exactly as the session read then, and that
// go on alone: a copy's steps reach neither its source nor its siblings.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ForkResponse } from "../../src/protocol";
import {
  action,
  createResetSession,
  forkCopy,
  json,
  send,
  step,
  type TestSession,
  withScope
} from "./helpers";
import { abort, stubOf } from "./session-helpers";

const asSession = (copy: ForkResponse["sessions"][number]): TestSession =>
  forkCopy(copy, "branchy");

/** Everything a client reads, without what differs between copies. */
const view = async (s: TestSession) => {
  const read = async (p: string) => json(await s.call(p));
  const {
    session_id: _id,
    created_at: _c,
    last_used_at: _u,
    ...status
  } = (await read("")) as Record<string, unknown>;
  const grader = await withScope(s, "grade");
  return {
    status,
    state: await read("/state"),
    store: await read("/environment?limit=1000"),
    keys: await read("/environment/keys"),
    messages: await read("/messages?limit=1000"),
    hidden: await json(await grader.call("/hidden"))
  };
};

const forkAt = async (s: TestSession, at: number, count = 1) => {
  const res = await s.call("/fork", send("POST", { count, step: at }));
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<ForkResponse>(res)).sessions.map(asSession);
};

const KEYS = ["a", "b", "c"];
const anAction = fc.oneof(
  fc.record({
    tool: fc.constant("put"),
    args: fc.record({
      key: fc.constantFrom(...KEYS),
      n: fc.integer({ min: 0, max: 99 })
    })
  }),
  fc.record({
    tool: fc.constant("drop"),
    args: fc.record({ key: fc.constantFrom(...KEYS) })
  }),
  fc.record({
    tool: fc.constant("hide"),
    args: fc.record({
      key: fc.constantFrom("x", "y"),
      value: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined })
    })
  }),
  fc.record({
    tool: fc.constant("note"),
    args: fc.record({ text: fc.string({ maxLength: 8 }) })
  }),
  fc.record({
    tool: fc.constant("run_js"),
    args: fc.integer({ min: 0, max: 99 }).map((k) => ({
      code: `await results.add({ name: "js", objects: [{ k: ${k} }] }); return ${k};`
    }))
  })
);

/** Plays `actions`, keeping what a client read after each step (index 0: after the reset). */
const play = async (
  actions: { tool: string; args: Record<string, unknown> }[]
) => {
  const s = await createResetSession({ environment: "branchy" });
  const views = [await view(s)];
  for (const a of actions) {
    await step(s, a.tool, a.args);
    views.push(await view(s));
  }
  return { s, views };
};

describe("forking at a past step", () => {
  it("gives copies that read exactly as the session did after that step", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(anAction, { minLength: 2, maxLength: 8 }),
        fc.nat(),
        async (actions, pick) => {
          const { s, views } = await play(actions);
          const at = 1 + (pick % actions.length);
          const [copy] = await forkAt(s, at);
          const { status, ...rest } = await view(copy!);
          const { status: then, ...restThen } = views[at]!;
          expect(rest).toEqual(restThen);
          expect(status).toEqual(then);
        }
      ),
      { numRuns: 12, seed: 51 }
    );
  }, 120_000);

  it("lets copies go on alone, and a copy of a copy too", async () => {
    const { s, views } = await play([
      { tool: "put", args: { key: "a", n: 1 } },
      { tool: "hide", args: { key: "x", value: 1 } },
      { tool: "put", args: { key: "a", n: 2 } },
      { tool: "note", args: { text: "late" } }
    ]);
    const [left, right] = await forkAt(s, 2, 2);
    await step(left!, "put", { key: "b", n: 7 });
    await step(right!, "drop", { key: "a" });
    // The source and each sibling are untouched by the others.
    expect(await view(s)).toEqual(views[4]);
    const leftView = await view(left!);
    expect(leftView.status).toMatchObject({ steps: 3 });
    expect(JSON.stringify(leftView.store)).toContain('"n":7');
    expect(JSON.stringify((await view(right!)).store)).not.toContain('"n":7');
    // A branch of the branch, at its own step 2: the source's step 2.
    const [again] = await forkAt(left!, 2);
    expect(await view(again!)).toEqual(
      await (async () => {
        const { status, ...rest } = views[2]!;
        return { status, ...rest };
      })()
    );
  }, 60_000);

  it("replays Results the model's code stored", async () => {
    const { s, views } = await play([
      {
        tool: "run_js",
        args: {
          code: 'await results.add({ name: "js", objects: [{ k: 5 }] }); return 5;'
        }
      },
      { tool: "put", args: { key: "a", n: 1 } }
    ]);
    expect(JSON.stringify(views[1]!.store)).toContain('"k":5');
    const [copy] = await forkAt(s, 1);
    expect(await view(copy!)).toEqual(views[1]);
  }, 60_000);

  it("forks at a past step after its object was aborted", async () => {
    const { s, views } = await play([
      { tool: "put", args: { key: "a", n: 1 } },
      { tool: "hide", args: { key: "y", value: 3 } },
      { tool: "put", args: { key: "c", n: 4 } }
    ]);
    await abort(stubOf(s.session_id));
    const [copy] = await forkAt(s, 2);
    expect(await view(copy!)).toEqual(views[2]);
  }, 60_000);

  it("at the episode's last step, copies it as it stood then, not what was edited since", async () => {
    const { s, views } = await play([
      { tool: "put", args: { key: "a", n: 1 } },
      { tool: "note", args: { text: "two" } }
    ]);
    const log = async () =>
      (
        await json<{ events: { seq: number; type: string; step?: number }[] }>(
          await s.call("/events?after=0&limit=100")
        )
      ).events;
    const stepTwo = (await log()).find(
      (e) => e.type === "step" && e.step === 2
    )!;
    // Nothing since step 2: the session as it stands is that step.
    const [same] = await forkAt(s, 2);
    expect(await view(same!)).toEqual(views[2]);
    // Edits since: a state patch, a direct call that writes the store and
    // state, a store key removed.
    const edits = [
      await s.call("/state", send("PATCH", { key: "last", value: "patched" })),
      await s.call(
        "/tools/put",
        send("POST", { arguments: { key: "b", n: 5 } })
      ),
      await s.call("/environment/put/a", { method: "DELETE" })
    ];
    expect(edits.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await view(s)).not.toEqual(views[2]);
    const res = await s.call("/fork", send("POST", { count: 1, step: 2 }));
    expect(res.status, await res.clone().text()).toBe(201);
    const answer = await json<ForkResponse>(res);
    // The answer's seq is the step's end, not the source's newest.
    expect(answer.seq).toBe(stepTwo.seq);
    const copy = asSession(answer.sessions[0]!);
    expect(await view(copy)).toEqual(views[2]);
    // The copy's log is the episode's up to step 2, then `forked`.
    const copied = (
      await json<{ events: { type: string; step?: number }[] }>(
        await copy.call("/events?after=0&limit=100")
      )
    ).events;
    const forked = copied.findIndex((e) => e.type === "forked");
    expect(copied[forked - 1]).toMatchObject({ type: "step", step: 2 });
  });

  it("refuses clearly what it cannot do, changing nothing", async () => {
    const { s } = await play([{ tool: "put", args: { key: "a", n: 1 } }]);
    const past = await s.call("/fork", send("POST", { step: 5 }));
    expect(past.status).toBe(400);
    expect(
      (await json<{ error: { details: unknown } }>(past)).error
    ).toMatchObject({
      details: { field: "step", steps: 1 }
    });
    // An entry replaced over HTTP holds objects no event carries.
    await s.call("/environment/put/a", send("PUT", { objects: [{ n: 9 }] }));
    await step(s, "note", { text: "after" });
    await step(s, "note", { text: "later" });
    // Step 1 came before it and is rebuilt; step 2 would need it.
    expect((await s.call("/fork", send("POST", { step: 1 }))).status).toBe(201);
    const replaced = await s.call("/fork", send("POST", { step: 2 }));
    expect(replaced.status).toBe(409);
    expect(
      (await json<{ error: { details: unknown } }>(replaced)).error
    ).toMatchObject({ details: { step: 2, unrebuilt: ["put/a"] } });
    const lab = await createResetSession({ environment: "lab" });
    await lab.call("/step", send("POST", action("bump", {})));
    await lab.call("/step", send("POST", action("bump", {})));
    const refused = await lab.call("/fork", send("POST", { step: 1 }));
    expect(refused.status).toBe(409);
    expect(
      (await json<{ error: { message: string } }>(refused)).error.message
    ).toContain("branchable: true");
  });
});
