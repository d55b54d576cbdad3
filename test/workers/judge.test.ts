import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { toolCalls } from "../../src/messages/build";
import type { AssistantMessage } from "../../src/messages/schema";
import { createLocalSession } from "../../src/runner/local-session";
import { grader, graderModel, judged } from "../fixtures/judged";
import {
  abort,
  api,
  err,
  inside,
  ok,
  runDueTimers,
  type SessionApi
} from "./session-helpers";

// Sessions of the test worker's second deployment (test/worker.ts), whose
// one configured model is the scripted grader its judges ask.
const judgedSession = async () => {
  const id = env.JUDGED.newUniqueId();
  const stub = api(env.JUDGED.get(id));
  ok(
    await stub.create({
      sessionId: id.toString(),
      environment: "judged",
      task: undefined
    })
  );
  ok(await stub.reset({}));
  return { id, stub };
};

/** An action in words, with no tool call. */
const words = (text: string): AssistantMessage => ({
  role: "assistant",
  content: text
});
const answer = (text: string) => ({ action: words(text) });

const verdictRows = (stub: SessionApi) =>
  inside(stub, (_o, state) =>
    state.storage.sql
      .exec<{ step: number; path: string; model: string; value: string }>(
        "SELECT step, path, model, value FROM judge_verdicts ORDER BY step, rowid"
      )
      .toArray()
      .map((r) => ({ ...r, value: JSON.parse(r.value) as unknown }))
  );

const NO_SUCH_MODEL = {
  value: 0,
  error: 'no judge model "nobody" is configured'
};

beforeEach(() => grader.reset([]));

describe("a judge in a session", () => {
  it("reports the parsed score as the component, fenced or bare, and the prompt carries the reference and the schema", async () => {
    const { stub } = await judgedSession();
    grader.reset([
      'Here you go: {"score": 0.75, "reason": "close"} — hope it helps',
      '```json\n{"same": true}\n```'
    ]);
    const out = ok(await stub.step(answer("42, I think")));
    expect(out.reward_components).toEqual({
      verdict: 0.75,
      strict: 1,
      "strict.check": 1,
      "strict.same": 1,
      absent: NO_SUCH_MODEL,
      scratch: 1
    });
    expect(out.reward).toBe(1.75);
    expect(grader.asked).toHaveLength(2);
    const [system, user] = grader.asked[0]!;
    expect(system!.content).toContain("You grade answers against a reference.");
    expect(system!.content).toContain('"maximum":1');
    expect(user!.content).toBe("Reference: 42\nAnswer: 42, I think");
    // The verdict's text stays out of the report and the step event.
    expect(JSON.stringify(out)).not.toContain("close");
    expect(await verdictRows(stub)).toEqual([
      {
        step: 1,
        path: "verdict",
        model: "grader:scripted",
        value: { score: 0.75, reason: "close" }
      },
      {
        step: 1,
        path: "strict.same",
        model: "grader:scripted",
        value: { same: true }
      }
    ]);
  });

  it("does not ask again for a step refused after the judges answered, retried after the object restarted", async () => {
    const { id, stub } = await judgedSession();
    grader.reset(['{"score": 1}', '{"same": true}']);
    // The `scratch` metric stages 4 KiB after the judges answered: over
    // this limit, the step is refused and nothing of it commits.
    await inside(stub, (o) =>
      o.runtime.setLimits({ stagedBytesPerStep: 2048 })
    );
    const refused = err(await stub.step(answer("42")));
    expect(refused.code).toBe("payload_too_large");
    expect(grader.asked).toHaveLength(2);
    expect(ok(await stub.status()).steps).toBe(0);
    // A crash: the new instance has the default limits again.
    await abort(stub);
    const again = api(env.JUDGED.get(id));
    const out = ok(await again.step(answer("42")));
    expect(out.reward_components).toMatchObject({ verdict: 1, strict: 1 });
    expect(grader.asked).toHaveLength(2);
    expect((await verdictRows(again)).map((r) => r.path)).toEqual([
      "verdict",
      "strict.same"
    ]);
    // A different answer is a different question: asked anew.
    grader.reset(['{"score": 0}', '{"same": false}']);
    const other = ok(await again.step(answer("41")));
    expect(other.reward_components).toMatchObject({ verdict: 0, strict: 0 });
    expect(grader.asked).toHaveLength(2);
  });

  it("reports a judge that fails every try, or answers off its schema, as its error; the step still answers", async () => {
    const { stub } = await judgedSession();
    grader.reset([
      '{"score": 3}',
      { fail: "overloaded" },
      '{"score": 1.5}',
      "no json here",
      '{"same": "yes"}'
    ]);
    const out = ok(await stub.step(answer("42")));
    expect(out.reward_components).toEqual({
      verdict: {
        value: 0,
        error:
          "the judge's answer does not fit its schema: score: Too big: expected number to be <=1"
      },
      strict: 0,
      "strict.check": 1,
      "strict.same": {
        value: 0,
        error:
          "the judge's answer does not fit its schema: same: Invalid input: expected boolean, received string"
      },
      absent: NO_SUCH_MODEL,
      scratch: 1
    });
    expect(out.reward).toBe(0);
    // Three tries for the default judge, the two `strict` allows.
    expect(grader.asked).toHaveLength(5);
    expect(await verdictRows(stub)).toEqual([]);
    // A failed judge keeps nothing: the next try of a step asks again.
    grader.reset([{ fail: "down" }, { fail: "down" }, { fail: "down" }]);
    const down = ok(await stub.step(answer("42")));
    expect(down.reward_components!.verdict).toEqual({
      value: 0,
      error: "down"
    });
  });

  it("retries a failed call and keeps the one verdict", async () => {
    const { stub } = await judgedSession();
    grader.reset([{ fail: "busy" }, '{"score": 1}', '{"same": true}']);
    const out = ok(await stub.step(answer("42")));
    expect(out.reward_components).toMatchObject({ verdict: 1, strict: 1 });
    expect(grader.asked).toHaveLength(3);
    expect((await verdictRows(stub)).map((r) => r.path)).toEqual([
      "verdict",
      "strict.same"
    ]);
  });

  it("judges the episode on its last step, kept under the episode's path", async () => {
    const { stub } = await judgedSession();
    grader.reset(['{"score": 1}', '{"same": true}']);
    ok(await stub.step(answer("42")));
    // An action without text: the gated judge is skipped and not asked.
    grader.reset(['{"score": 0.5}', '{"score": 0.9}']);
    const last = ok(
      await stub.step({ action: toolCalls({ name: "finish", arguments: {} }) })
    );
    expect(last.done).toBe(true);
    expect(last.reward_components).toMatchObject({
      verdict: 0.5,
      "strict.check": 0,
      "strict.same": { skipped: true },
      episode: 0.9,
      "episode.overall": 0.9
    });
    expect(grader.asked[1]![1]!.content).toBe("Reference: 42\nAnswers: 42 | ");
    expect((await verdictRows(stub)).map((r) => [r.step, r.path])).toEqual([
      [1, "verdict"],
      [1, "strict.same"],
      [2, "verdict"],
      [2, "episode.overall"]
    ]);
  });
});

describe("a judge in a local session", () => {
  it("reports that no model is configured unless the caller hands one in", async () => {
    const bare = createLocalSession(judged);
    await bare.reset();
    const out = await bare.step(words("42"));
    expect(out.reward_components!.verdict).toEqual({
      value: 0,
      error: expect.stringContaining("no judge model configured")
    });
    const local = createLocalSession(judged, {
      judgeModels: { grader: graderModel }
    });
    await local.reset();
    grader.reset(['{"score": 0.5}', '{"same": false}']);
    const judgedOut = await local.step(words("42"));
    expect(judgedOut.reward_components).toMatchObject({
      verdict: 0.5,
      strict: 0,
      "strict.same": 0
    });
  });
});

describe("a judge when a session is re-scored", () => {
  // Re-scoring needs a grade grant: its components are functions of the hidden store.
  const rescore = (stub: SessionApi, rubric: string) =>
    stub.op("rescore", { rubric }, { scope: "grade", issuedAt: 0 });

  it("finds the verdicts the steps were scored with, and asks and keeps only a new question", async () => {
    const { stub } = await judgedSession();
    grader.reset(['{"score": 0.5}', '{"same": false}']);
    const scored = ok(await stub.step(answer("forty-two")));
    expect(grader.asked).toHaveLength(2);

    // The same rubric again: every verdict is kept, the model is not asked.
    const again = ok(await rescore(stub, "rubric"));
    expect(grader.asked).toHaveLength(2);
    expect(again.episodes[0]!.steps[0]!.rescored!.components).toEqual(
      scored.reward_components
    );

    // A question no step asked goes to the model once, then is kept too.
    grader.reset(['{"score": 1}']);
    const lenient = ok(await rescore(stub, "lenient"));
    expect(lenient.episodes[0]!.steps[0]!.rescored!.components).toEqual({
      loose: 1
    });
    expect(grader.asked).toHaveLength(1);
    ok(await rescore(stub, "lenient"));
    expect(grader.asked).toHaveLength(1);
  });
});

describe("a judge's verdicts over the session's life", () => {
  const kept = (stub: SessionApi) =>
    inside(stub, (_o, state) =>
      state.storage.sql
        .exec<{ episode: number; path: string }>(
          "SELECT episode, path FROM judge_verdicts ORDER BY episode, rowid"
        )
        .toArray()
        .map((r) => `${r.episode}:${r.path}`)
    );

  it("keeps an old episode's verdicts while the log holds its events, for re-scoring, and purges them once it does not", async () => {
    const { stub } = await judgedSession();
    grader.reset(['{"score": 1}', '{"same": true}']);
    ok(await stub.step(answer("42")));
    ok(await stub.reset({}));
    // The purge after the reset ran: episode 1's events are still logged.
    await runDueTimers(stub);
    expect(await kept(stub)).toEqual(["1:verdict", "1:strict.same"]);

    // A log that retains a few events forgets episode 1 within episode 2.
    await inside(stub, (o) => o.runtime.setLimits({ eventsRetained: 3 }));
    grader.reset(['{"score": 0}', '{"same": false}']);
    ok(await stub.step(answer("41")));
    grader.reset(['{"score": 0}', '{"same": false}']);
    ok(await stub.step(answer("40")));
    ok(await stub.reset({}));
    await runDueTimers(stub);
    const left = await kept(stub);
    expect(left.some((k) => k.startsWith("1:"))).toBe(false);
    // Only what the log still holds is kept: never the episode it dropped.
    expect(left.every((k) => k.startsWith("2:"))).toBe(true);
  });
});
