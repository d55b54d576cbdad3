// A session's task limits: 16 waiting or running at once, 1 000 kept. The counts are
// kept in memory rather than counted in SQL per start (a count reads, and
// bills, every kept row), so this checks they follow tasks that end.
import { describe, expect, it } from "vitest";
import { gate } from "../fixtures/environments";
import { createResetSession, json, send, type TestSession } from "./helpers";
import { inside, stubOf } from "./session-helpers";

interface Answer {
  result?: { task?: { taskId: string; status: string } };
  error?: { code: number; data?: { code?: string; details?: unknown } };
}

let ids = 0;
const startWait = async (s: TestSession, id: string): Promise<Answer> => {
  const res = await s.call(
    "/mcp",
    send(
      "POST",
      {
        jsonrpc: "2.0",
        id: ++ids,
        method: "tools/call",
        params: { name: "wait", arguments: { gate: id }, task: {} }
      },
      {
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25"
      }
    )
  );
  expect(res.status).toBe(200);
  return json<Answer>(res);
};

describe("task limits", () => {
  it("refuses a 17th task while 16 wait or run, and admits one again once one ended", async () => {
    const s = await createResetSession({ environment: "lab" });
    const gates = Array.from(
      { length: 16 },
      () => `limit-${crypto.randomUUID()}`
    );
    for (const id of gates) {
      const started = await startWait(s, id);
      expect(started.result?.task?.status).toBe("working");
    }
    const refused = await startWait(s, `limit-${crypto.randomUUID()}`);
    expect(refused.error).toMatchObject({
      code: -32000,
      data: { code: "conflict", details: { limit: 16 } }
    });
    // The first call runs (the others queue behind it): open its gate and
    // wait for the session to take the next, so the first task has ended.
    const stub = stubOf(s.session_id);
    await inside(stub, () => gate(gates[0]!).open());
    await inside(stub, () => gate(gates[1]!).started);
    const last = `limit-${crypto.randomUUID()}`;
    const admitted = await startWait(s, last);
    expect(admitted.result?.task?.status).toBe("working");
    for (const id of [...gates.slice(1), last]) {
      await inside(stub, () => gate(id).open());
    }
  });
});

describe("tasks kept", () => {
  // The 1 000 a session keeps are every task until its TTL (an hour by
  // default), ended or not: the 1 001st is refused while they last.
  it("refuses a task past the 1 000 kept, naming the limit", async () => {
    const s = await createResetSession({ environment: "lab" });
    const start = () =>
      s
        .call(
          "/mcp",
          send(
            "POST",
            {
              jsonrpc: "2.0",
              id: ++ids,
              method: "tools/call",
              params: { name: "note", arguments: { text: "n" }, task: {} }
            },
            {
              "Content-Type": "application/json",
              "MCP-Protocol-Version": "2025-11-25"
            }
          )
        )
        .then((res) => json<Answer>(res));
    let started = 0;
    for (;;) {
      const answer = await start();
      const limit = (answer.error?.data?.details as { limit?: number })?.limit;
      // 16 working at once: wait for the calls to run, then go on.
      if (limit === 16) {
        await new Promise((r) => setTimeout(r, 10));
        continue;
      }
      if (answer.error !== undefined) {
        expect(answer.error).toMatchObject({
          code: -32000,
          data: { code: "conflict", details: { limit: 1000 } }
        });
        break;
      }
      started++;
      expect(started).toBeLessThanOrEqual(1000);
    }
    expect(started).toBe(1000);
  }, 120_000);
});
