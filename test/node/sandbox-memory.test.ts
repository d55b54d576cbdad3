// The memory bomb of a model's code against `npm start`: each run ends
// with a clear error for the model, the sandbox process restarts, and the
// sessions' own process never notices: another session steps on
// throughout, and code that behaves runs again afterwards. Code stuck in
// one built-in call times out, and the sandbox that stopped answering is
// restarted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmStart, npmStart, postJson } from "./helpers/npm-start";

const BOMB = "const a = []; for (;;) a.push(new Array(1e6).fill(1))";
// Memory V8's heap cap does not count: caught by the host's size watch.
const BUFFER_BOMB =
  "const a = []; for (;;) { const b = new Uint8Array(1e8); b.fill(1); a.push(b) }";

let server: NpmStart;
let base: string;

beforeAll(async () => {
  server = await npmStart();
  base = server.base;
}, 120_000);

afterAll(() => server.stop());

interface Answer {
  session_id?: string;
  token?: string;
  done?: boolean;
  observations?: { content: string; is_error: boolean }[];
}
const post = (url: string, body: unknown, token?: string) =>
  postJson<Answer>(url, body, token);

/** A reset session of `environment`: its step as a function of the calls. */
const session = async (environment: string) => {
  const created = await post(`${base}/v1/sessions`, { environment });
  expect(created.status).toBe(201);
  const url = `${base}/v1/sessions/${created.body.session_id}`;
  const token = created.body.token!;
  const reset = async () =>
    expect((await post(`${url}/reset`, {}, token)).status).toBe(200);
  await reset();
  let n = 0;
  const step = async (name: string, args: unknown) => {
    n += 1;
    const res = await post(
      `${url}/step`,
      {
        action: {
          role: "assistant",
          tool_calls: [
            {
              id: `c${n}`,
              type: "function",
              function: { name, arguments: JSON.stringify(args) }
            }
          ]
        }
      },
      token
    );
    expect(res.status).toBe(200);
    return { ...res.body.observations![0]!, done: res.body.done === true };
  };
  return { step, reset };
};

describe("code that allocates without end, on npm start", () => {
  it("ends each run with a clear error, ten times, while the server answers throughout", async () => {
    const analyst = await session("code-analyst");
    const counter = await session("counter");
    let counted = 0;
    let episode = 0;
    let bombing = true;
    // Another session stepping the whole time (an episode is ten steps;
    // paced under the session's rate limit): it never sees a failure.
    const steady = (async () => {
      while (bombing) {
        const seen = await counter.step("incr", {});
        counted += 1;
        episode += 1;
        expect(seen.is_error).toBe(false);
        expect(seen.content).toContain(`counter=${episode}`);
        if (seen.done) {
          await counter.reset();
          episode = 0;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    for (let i = 0; i < 10; i++) {
      const seen = await analyst.step("run_js", { code: BOMB });
      expect(seen.is_error).toBe(true);
      expect(seen.content).toMatch(/used more than 128 MB of memory/);
      expect(seen.content).toMatch(/Fix the code and call run_js again/);
      expect((await fetch(`${base}/health`)).status).toBe(200);
    }
    bombing = false;
    await steady;
    expect(counted).toBeGreaterThan(0);
    // The sandbox is back: code that behaves runs, with the store (in a
    // new episode: ten steps ended the first).
    await analyst.reset();
    const fine = await analyst.step("run_js", {
      code: 'const [e] = await store.find("catalog", "products"); return e.objects.length'
    });
    expect(fine.is_error).toBe(false);
    expect(JSON.parse(fine.content).result).toBeGreaterThan(0);
    expect(server.output()).toContain(
      "a code run passed 128 MB of JavaScript heap; the sandbox host restarts"
    );
  }, 120_000);

  it("ends a run that fills ArrayBuffers (outside the heap) the same way", async () => {
    const analyst = await session("code-analyst");
    const seen = await analyst.step("run_js", { code: BUFFER_BOMB });
    expect(seen.is_error).toBe(true);
    expect(seen.content).toMatch(/used more than 128 MB of memory/);
    expect(server.output()).toMatch(/the sandbox process passed \d+ MB/);
    const fine = await analyst.step("run_js", { code: "return 6 * 7" });
    expect(JSON.parse(fine.content)).toEqual({ result: 42 });
  }, 60_000);
});

describe("code stuck inside one built-in call, on npm start", () => {
  it("times out for the model, and the sandbox process is restarted so code runs again", async () => {
    const analyst = await session("code-analyst");
    // Catastrophic backtracking: one call that never returns, no step counted.
    const stuck = await analyst.step("run_js", {
      code: 'return /(a+)+b/.test("a".repeat(40))'
    });
    expect(stuck.is_error).toBe(true);
    expect(stuck.content).toMatch(/did not finish within 5000 ms/);
    // The host stopped answering: it is ended and started again.
    for (let i = 0; i < 60; i++) {
      if (server.output().includes("the sandbox process stopped answering"))
        break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(server.output()).toContain(
      "the sandbox process stopped answering for 10 s"
    );
    const fine = await analyst.step("run_js", { code: "return 6 * 7" });
    expect(JSON.parse(fine.content)).toEqual({ result: 42 });
  }, 90_000);
});
