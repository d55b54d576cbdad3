import { describe, expect, it } from "vitest";
import { action, createSession, errorOf, json, send } from "./helpers";

describe("the counter over HTTP", () => {
  it("runs create → reset → 10 × incr → reward 1, done → 409 on another step", async () => {
    const session = await createSession({ environment: "counter" });
    const reset = await session.call("/reset", send("POST", {}));
    expect(reset.status).toBe(200);
    const first = await json<{
      observations: { content: string }[];
      tools: unknown[];
    }>(reset);
    expect(first.observations[0]?.content).toContain("Count to 10");
    expect(first.tools).toHaveLength(2);
    let last: Record<string, unknown> = {};
    for (let i = 1; i <= 10; i++) {
      const res = await session.call("/step", send("POST", action("incr")));
      expect(res.status).toBe(200);
      last = await json(res);
      expect(last.done).toBe(i === 10);
    }
    expect(last).toMatchObject({ reward: 1, done: true, truncated: false });
    const status = await json(await session.call(""));
    expect(status).toMatchObject({
      steps: 10,
      return: 1,
      done: true,
      status: "done"
    });
    const again = await session.call("/step", send("POST", action("incr")));
    expect(again.status).toBe(409);
    expect((await errorOf(again)).code).toBe("episode_not_running");
  });

  it("answers 409 episode_not_running to a step before the first reset", async () => {
    const session = await createSession();
    const res = await session.call("/step", send("POST", action("incr")));
    expect(res.status).toBe(409);
    expect((await errorOf(res)).code).toBe("episode_not_running");
  });

  it("accepts a reset with no body at all, and a reset task", async () => {
    const session = await createSession();
    const bare = await session.call("/reset", { method: "POST" });
    expect(bare.status).toBe(200);
    const withTask = await session.call(
      "/reset",
      send("POST", { task: { target: 2 } })
    );
    expect(withTask.status).toBe(200);
    const { observations } = await json<{
      observations: { content: string }[];
    }>(withTask);
    expect(observations[0]?.content).toContain("Count to 2");
  });
});
