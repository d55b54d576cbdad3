import { describe, expect, it } from "vitest";
import type {
  RescoreResponse,
  RewardComponents,
  StepResponse
} from "../../src/protocol";
import {
  call,
  createResetSession,
  errorOf,
  json,
  readable,
  send,
  step,
  type TestSession,
  withScope
} from "./helpers";
import { abort, events, inside, runDueTimers, stubOf } from "./session-helpers";

const rescore = async (
  grader: TestSession,
  body: Record<string, unknown>
): Promise<RescoreResponse> => {
  const response = await grader.call("/rescore", send("POST", body));
  if (response.status !== 200)
    throw new Error(`rescore ${response.status}: ${await response.text()}`);
  return json<RescoreResponse>(response);
};

const reset = async (s: TestSession, task?: unknown) => {
  const response = await s.call(
    "/reset",
    send("POST", task === undefined ? {} : { task })
  );
  expect(response.status).toBe(200);
};

/** The answered components a rescore names: what the rubric reported then. */
const answeredPart = (
  answered: RewardComponents | undefined,
  rescored: RewardComponents
) => Object.fromEntries(Object.keys(rescored).map((k) => [k, answered?.[k]]));

/**
 * Three episodes of `regraded`: solved on the second guess (offset 0),
 * truncated after three (offset 2), then one still running (offset 1).
 */
const play = async () => {
  const s = await createResetSession({ environment: "regraded" });
  const answers: StepResponse[][] = [[], [], []];
  answers[0]!.push(await step(s, "guess", { n: 5 }));
  answers[0]!.push(await step(s, "guess", { n: 7 }));
  await reset(s, { offset: 2 });
  answers[1]!.push(await step(s, "guess", { n: 1 }));
  answers[1]!.push(await step(s, "guess", { n: 8 }));
  answers[1]!.push(await step(s, "guess", { n: 10 }));
  await reset(s, { offset: 1 });
  answers[2]!.push(await step(s, "guess", { n: 7 }));
  return { s, grader: await withScope(s, "grade"), answers };
};

describe("POST /v1/sessions/:id/rescore", () => {
  it("reproduces exactly what the environment's own rubrics answered, on every retained episode, old episodes' rows purged", async () => {
    const { s, grader, answers } = await play();
    // The purge after the resets ran: episodes 1 and 2 have no hidden,
    // state or store rows left, only the log and the recorded changes.
    const stub = stubOf(s.session_id);
    // The purge is due after each reset; a batch takes every old row here.
    await runDueTimers(stub);
    const left = await inside(stub, (_o, state) =>
      state.storage.sql
        .exec<{ n: number }>(
          "SELECT count(*) AS n FROM hidden WHERE episode < 3"
        )
        .one()
    );
    expect(left.n).toBe(0);

    const steps = await rescore(grader, { rubric: "rubric" });
    expect(steps.kind).toBe("step");
    expect(steps.episodes.map((e) => e.episode)).toEqual([1, 2, 3]);
    expect(steps.episodes.map((e) => e.ended)).toEqual([true, true, false]);
    for (const [i, episode] of steps.episodes.entries()) {
      expect(episode.steps.map((t) => t.answered.reward)).toEqual(
        answers[i]!.map((a) => a.reward)
      );
      for (const [j, t] of episode.steps.entries()) {
        const answered = answers[i]![j]!.reward_components;
        expect(t.answered.reward_components).toEqual(answered);
        expect(Object.keys(t.rescored!.components)).toEqual([
          "right",
          "near",
          "offset",
          "tries",
          "stored"
        ]);
        expect(t.rescored!.components).toEqual(
          answeredPart(answered, t.rescored!.components)
        );
      }
    }
    // The task, state, hidden store and environment store were as then:
    // episode 2's offset, its third try, its growing store.
    expect(steps.episodes[1]!.steps[2]!.rescored!.components).toEqual({
      right: 0,
      near: 1 / 2,
      offset: 2,
      tries: 1,
      stored: 3
    });

    const episodes = await rescore(grader, { rubric: "episodeRubric" });
    expect(episodes.kind).toBe("episode");
    for (const [i, episode] of episodes.episodes.entries()) {
      const last = episode.steps.at(-1)!;
      if (!episode.ended) {
        expect(last.rescored).toBeUndefined();
        continue;
      }
      expect(episode.steps.slice(0, -1).every((t) => !t.rescored)).toBe(true);
      const answered = answers[i]!.at(-1)!.reward_components;
      expect(Object.keys(last.rescored!.components)).toEqual([
        "episode",
        "episode.solved",
        "episode.spent",
        "episode.actions",
        "episode.seen"
      ]);
      expect(last.rescored!.components).toEqual(
        answeredPart(answered, last.rescored!.components)
      );
    }
    expect(episodes.episodes[1]!.steps[2]!.rescored!.components).toMatchObject({
      "episode.solved": 0,
      "episode.actions": 3,
      "episode.seen": 3
    });
  });

  it("applies another registered rubric with its own values, and changes nothing: no event, seq, state, store or hidden value", async () => {
    const { s, grader } = await play();
    const stub = stubOf(s.session_id);
    const hidden = async () =>
      (await grader.call("/hidden")).json() as Promise<unknown>;
    const before = {
      readable: await readable(s),
      events: await events(stub),
      hidden: await hidden(),
      rows: await inside(stub, (_o, state) =>
        state.storage.sql
          .exec("SELECT episode, seq, part, body FROM rescore_log")
          .toArray()
      )
    };
    const within = await rescore(grader, { rubric: "within_one" });
    expect(
      within.episodes.map((e) =>
        e.steps.map((t) => t.rescored!.components.close)
      )
    ).toEqual([[0, 1], [0, 1, 1], [1]]);
    expect(within.episodes.map((e) => e.total)).toEqual([1, 2, 1]);
    const brevity = await rescore(grader, { rubric: "brevity" });
    expect(
      brevity.episodes.map((e) => e.steps.at(-1)!.rescored?.components)
    ).toEqual([
      { episode: 0.5, "episode.short": 0.5 },
      { episode: 1 / 3, "episode.short": 1 / 3 },
      undefined
    ]);
    expect(await readable(s)).toBe(before.readable);
    expect(await events(stub)).toEqual(before.events);
    expect(await hidden()).toEqual(before.hidden);
    expect(
      await inside(stub, (_o, state) =>
        state.storage.sql
          .exec("SELECT episode, seq, part, body FROM rescore_log")
          .toArray()
      )
    ).toEqual(before.rows);
  });

  it("answers 404 for a rubric the environment does not register, naming those it does, and 400 for a bad body, changing nothing", async () => {
    const { s, grader } = await play();
    const stub = stubOf(s.session_id);
    const before = await events(stub);
    const unknown = await grader.call(
      "/rescore",
      send("POST", { rubric: "nope" })
    );
    expect(unknown.status).toBe(404);
    const body = await errorOf(unknown);
    expect(body.code).toBe("not_found");
    expect(body.details).toEqual({
      rubric: "nope",
      rubrics: ["rubric", "episodeRubric", "within_one", "brevity", "verbose"]
    });
    for (const bad of [
      {},
      { rubric: "" },
      { rubric: "rubric", episodes: [] },
      { rubric: "rubric", episodes: [0] },
      { rubric: "rubric", limit: 0 },
      { rubric: "rubric", cursor: "x" },
      { rubric: "rubric", extra: 1 }
    ]) {
      const response = await grader.call("/rescore", send("POST", bad));
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect((await errorOf(response)).code).toMatch(/^invalid_/);
    }
    // A control token does not hold grade: the hidden store is a grader's.
    expect(
      (await s.call("/rescore", send("POST", { rubric: "rubric" }))).status
    ).toBe(403);
    // An environment that registers nothing has nothing to re-apply.
    const counter = await createResetSession({ environment: "counter" });
    const none = await (await withScope(counter, "grade")).call(
      "/rescore",
      send("POST", { rubric: "rubric" })
    );
    expect(none.status).toBe(404);
    expect((await errorOf(none)).details).toEqual({
      rubric: "rubric",
      rubrics: []
    });
    expect(await events(stub)).toEqual(before);
  });

  it("lists the registered rubric names in the environment's description", async () => {
    const response = await call("/v1/environments");
    const { environments } = await json<{
      environments: { name: string; rubrics?: string[] }[];
    }>(response);
    const described = new Map(environments.map((e) => [e.name, e.rubrics]));
    expect(described.get("regraded")).toEqual([
      "rubric",
      "episodeRubric",
      "within_one",
      "brevity",
      "verbose"
    ]);
    expect(described.get("counter")).toBeUndefined();
  });

  it("re-scores only the episodes whose reset the log still holds, pages with a cursor and names asked-for episodes it cannot", async () => {
    const { s, grader } = await play();
    const stub = stubOf(s.session_id);
    // Retention trims the log from its oldest row, as a commit does, up to
    // episode 2's reset: episode 1's events are gone, 2's and 3's whole.
    const logged = await events(stub);
    const second = logged.find((e) => e.type === "reset" && e.episode === 2)!;
    const last = logged.at(-1)!.seq;
    await inside(stub, (o) =>
      o.runtime.events.trim(last - second.seq + 1, 1e9, last)
    );
    expect((await events(stub))[0]!.seq).toBe(second.seq);
    const all = await rescore(grader, { rubric: "rubric" });
    expect(all.episodes.map((e) => e.episode)).toEqual([2, 3]);
    const firstPage = await rescore(grader, { rubric: "rubric", limit: 1 });
    expect(firstPage.episodes.map((e) => e.episode)).toEqual([2]);
    expect(firstPage.next_cursor).toBe("3");
    const next = await rescore(grader, {
      rubric: "rubric",
      cursor: firstPage.next_cursor
    });
    expect(next.episodes).toEqual(all.episodes.slice(1));
    expect(next.next_cursor).toBeUndefined();
    const asked = await rescore(grader, {
      rubric: "rubric",
      episodes: [1, 3, 9]
    });
    expect(asked.episodes.map((e) => e.episode)).toEqual([3]);
    expect(asked.unavailable).toEqual([1, 9]);
  });

  it("gives the same answer after the object was aborted mid-session and reloaded", async () => {
    const { s, grader } = await play();
    const before = await rescore(grader, { rubric: "rubric" });
    const episodes = await rescore(grader, { rubric: "episodeRubric" });
    await abort(stubOf(s.session_id));
    expect(await rescore(grader, { rubric: "rubric" })).toEqual(before);
    expect(await rescore(grader, { rubric: "episodeRubric" })).toEqual(
      episodes
    );
  });

  it("re-scores an episode whole across a reset that failed in the middle of it", async () => {
    const s = await createResetSession({ environment: "regraded" });
    const first = await step(s, "guess", { n: 5 });
    const failed = await s.call(
      "/reset",
      send("POST", { task: { offset: -1 } })
    );
    expect(failed.status).toBeGreaterThanOrEqual(400);
    const last = await step(s, "guess", { n: 7 });
    expect(last.done).toBe(true);
    const out = await rescore(await withScope(s, "grade"), {
      rubric: "episodeRubric"
    });
    expect(out.episodes).toHaveLength(1);
    const [episode] = out.episodes;
    expect(episode!.ended).toBe(true);
    expect(episode!.steps.map((t) => t.step)).toEqual([1, 2]);
    expect(episode!.answered_return).toBe(first.reward + last.reward);
    expect(episode!.steps[1]!.rescored!.components).toEqual(
      answeredPart(
        last.reward_components,
        episode!.steps[1]!.rescored!.components
      )
    );
  });

  it("refuses, as a component error, to read a store key the log cannot rebuild, and scores the rest", async () => {
    const s = await createResetSession({ environment: "regraded" });
    await step(s, "guess", { n: 3 });
    await step(s, "wipe");
    const answered = await step(s, "guess", { n: 7 });
    const grader = await withScope(s, "grade");
    const out = await rescore(grader, { rubric: "rubric" });
    const [first, second, third] = out.episodes[0]!.steps;
    expect(first!.rescored!.components).toEqual(
      answeredPart(
        (
          await json<{
            events: { type: string; reward_components?: RewardComponents }[];
          }>(await s.call("/events?after=0&limit=1000"))
        ).events.find((e) => e.type === "step")!.reward_components,
        first!.rescored!.components
      )
    );
    expect(second!.rescored!.components.stored).toMatchObject({
      value: 0,
      error: expect.stringContaining("replaced")
    });
    expect(third!.rescored!.components).toMatchObject({
      right: answered.reward_components!.right,
      near: answered.reward_components!.near,
      tries: answered.reward_components!.tries
    });
  });

  it("ends a page once its answer passes about 4 MiB, however few episodes it holds, and the cursor reads on", async () => {
    const { grader } = await play();
    const first = await rescore(grader, { rubric: "verbose" });
    // Episodes 1 and 2 answer about 2.3 and 3.5 MiB: the page ends after 2.
    expect(first.episodes.map((e) => e.episode)).toEqual([1, 2]);
    expect(first.next_cursor).toBe("3");
    const size = new TextEncoder().encode(JSON.stringify(first)).length;
    expect(size).toBeGreaterThan(4 * 1024 * 1024);
    expect(size).toBeLessThan(7 * 1024 * 1024);
    const component = first.episodes[0]!.steps[0]!.rescored!.components.c0;
    expect(component).toMatchObject({ value: 0 });
    const rest = await rescore(grader, {
      rubric: "verbose",
      cursor: first.next_cursor
    });
    expect(rest.episodes.map((e) => e.episode)).toEqual([3]);
    expect(rest.next_cursor).toBeUndefined();
  });
});
