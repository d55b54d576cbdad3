// Two rescores of one session at once, whose judge asks a question no step
// asked: the model is asked once, and both get its verdict.

import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { questionsJoined } from "../../src/session/judges";
import { grader } from "../fixtures/judged";
import { api, inside, ok, type SessionApi } from "./session-helpers";

const judgedSession = async (): Promise<SessionApi> => {
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
  return stub;
};

// Re-scoring needs a grade grant: its components are functions of the hidden store.
const rescore = (stub: SessionApi, rubric: string) =>
  stub.op("rescore", { rubric }, { scope: "grade", issuedAt: 0 });

beforeEach(() => grader.reset([]));

describe("concurrent rescores", () => {
  it("share a question being asked: the model answers it once, and both get the verdict", async () => {
    const stub = await judgedSession();
    grader.reset(['{"score": 0.5}', '{"same": false}']);
    ok(await stub.step({ action: { role: "assistant", content: "42" } }));

    // `lenient` asks what no step asked; the model is slow to answer it.
    let answer!: () => void;
    grader.reset(['{"score": 1}']);
    grader.hold = new Promise((r) => {
      answer = r;
    });
    const first = rescore(stub, "lenient");
    const second = rescore(stub, "lenient");
    // Until the second rescore has joined the first's question, or asked
    // the model itself (which this test is here to refuse).
    for (;;) {
      const joined = await inside(stub, (_o, state) =>
        questionsJoined(state.storage.sql)
      );
      if (joined > 0 || grader.asked.length > 1) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    answer();
    const [a, b] = [ok(await first), ok(await second)];
    expect(grader.asked).toHaveLength(1);
    for (const out of [a, b])
      expect(out.episodes[0]!.steps[0]!.rescored!.components).toEqual({
        loose: 1
      });
    // Kept once answered: a later rescore asks nothing.
    ok(await rescore(stub, "lenient"));
    expect(grader.asked).toHaveLength(1);
  });
});
