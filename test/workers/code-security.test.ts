// What the model's code must not reach or break. Each case answers a clear
// error (or, where the platform simply has nothing to reach, an empty
// answer) and leaves the session exactly as it was: store, hidden store,
// state, transcript and event log (but for the call's own events).
import { describe, expect, it } from "vitest";
import { answer, coderSession, holdings, runCode } from "./code-helpers";
import { inside } from "./session-helpers";

/** Runs `code`, expects an error containing `says`, and the session unchanged. */
const refused = async (
  code: string,
  says: string | RegExp,
  tool = "run_js"
) => {
  const s = await coderSession();
  const before = await holdings(s);
  const out = await runCode(s, code, tool);
  expect(out.is_error).toBe(true);
  expect(out.content).toMatch(says);
  expect(out.results).toEqual([]);
  expect(await holdings(s)).toEqual(before);
  return s;
};

const NO_INTERNET = /not permitted to access the internet/;

describe("the code sandbox", () => {
  describe("network", () => {
    it.each([
      ["fetch", 'await fetch("https://example.com/")'],
      ["fetch with a Request", 'await fetch(new Request("http://10.0.0.1/"))'],
      ["WebSocket", 'new WebSocket("wss://example.com/")'],
      [
        "fetch after a Results write",
        'await results.add({ name: "x", objects: [{}] }); await fetch("https://example.com/")'
      ]
    ])("refuses %s", async (_name, code) => {
      await refused(code, NO_INTERNET);
    });

    it("refuses connect() and every module import before the code runs", async () => {
      await refused(
        'const { connect } = await import("cloudflare:sockets"); connect("example.com:80")',
        "import and export are not available"
      );
    });

    it("has no cache to write through", async () => {
      await refused(
        'await caches.default.put("https://example.com/", new Response("x"))',
        /Cache/
      );
    });

    it("refuses hosts outside the allow-list, and plain http to one on it", async () => {
      await refused(
        'await fetch("https://evil.example.net/")',
        "fetch of https://evil.example.net refused",
        "net_js"
      );
      await refused(
        'await fetch("http://api.example.com/")',
        "refused: the code may reach only api.example.com over https",
        "net_js"
      );
    });
  });

  describe("the session's storage", () => {
    it("is out of reach: no bindings, no env, no eval", async () => {
      const s = await coderSession();
      const out = await runCode(
        s,
        `const seen = {};
for (const name of ["SESSIONS", "JUDGED", "LOADER", "env", "ROOST_DEV", "process"]) seen[name] = typeof globalThis[name];
let ev;
try { eval("1"); ev = "ran"; } catch (e) { ev = e.name; }
let fn;
try { new Function("return 1")(); fn = "ran"; } catch (e) { fn = e.name; }
return { seen, ev, fn, self: typeof this };`
      );
      expect(answer(out.content).result).toEqual({
        seen: {
          SESSIONS: "undefined",
          JUDGED: "undefined",
          LOADER: "undefined",
          env: "undefined",
          ROOST_DEV: "undefined",
          process: "undefined"
        },
        ev: "EvalError",
        fn: "EvalError",
        self: "undefined"
      });
    });

    it("reads only its own session's store", async () => {
      const other = await coderSession();
      await runCode(
        other,
        'await results.add({ name: "other_only", objects: [{ mine: true }] }); 1'
      );
      const s = await coderSession();
      const out = await runCode(
        s,
        "return (await store.keys()).map((k) => k.name);"
      );
      expect(answer(out.content).result).toEqual(["toys"]);
    });
  });

  describe("capabilities", () => {
    it("gives a tool without grants nothing: no store, results, state or hidden", async () => {
      const s = await coderSession();
      const out = await runCode(
        s,
        "return [typeof store, typeof results, typeof state, typeof hidden];",
        "bare_js"
      );
      expect(answer(out.content).result).toEqual([
        "undefined",
        "undefined",
        "undefined",
        "undefined"
      ]);
    });

    it.each([
      [
        'await state.get("secret_plan")',
        'state key "secret_plan" is not granted'
      ],
      ['await hidden.get("answer")', 'hidden key "answer" is not granted'],
      [
        'await hidden.get("__proto__")',
        'hidden key "__proto__" is not granted'
      ],
      [
        'await store.find({ toString() { return "seed"; } }, "toys")',
        "tool must be a non-empty string"
      ],
      [
        'await results.add({ name: "d", objects: [new Date()] })',
        "only JSON is accepted"
      ]
    ])("refuses %s", async (code, says) => {
      await refused(code, says);
    });

    it("refuses a Result the store would refuse before storing any of the run's", async () => {
      await refused(
        'await results.add({ name: "a", objects: [{ i: 1 }] }); await results.add({ name: "b", objects: Array.from({ length: 1001 }, (_, i) => ({ i })) });',
        "1001 objects in one result; the limit is 1000"
      );
      await refused(
        'await results.add({ name: "m", objects: [{}], metadata: [1] })',
        "result.metadata must be a JSON object"
      );
    });

    it("adds at most its limit of Results, and then none at all", async () => {
      await refused(
        'for (let i = 0; i < 5; i++) await results.add({ name: "r" + i, objects: [{ i }] });',
        "a run may add at most 3 Results"
      );
    });
  });

  it("keeps prototype pollution inside the sandbox", async () => {
    const s = await coderSession();
    const before = await holdings(s);
    const out = await runCode(
      s,
      `Object.prototype.polluted = "yes";
Array.prototype.map = () => "hijacked";
JSON.parse = () => ({ polluted: "reply" });
return JSON.stringify === undefined ? 0 : { own: ({}).polluted };`
    );
    expect(out.is_error).toBe(false);
    expect(answer(out.content).result).toEqual({ own: "yes" });
    const proto = await runCode(
      s,
      `await results.add({ name: "p", objects: [JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}}')] });
return JSON.parse('{"__proto__": {"polluted": 3}}');`
    );
    expect(proto.is_error).toBe(false);
    // In the session's isolate nothing changed, and the next sandbox is clean.
    const clean = await inside(s, () => [
      {} as Record<string, unknown>,
      [1].map((x) => x)
    ]);
    expect((clean[0] as Record<string, unknown>).polluted).toBeUndefined();
    expect(clean[1]).toEqual([1]);
    const next = await runCode(
      s,
      "return [({}).polluted, [1].map((x) => x * 2)];"
    );
    expect(answer(next.content).result).toEqual([null, [2]]);
    // The one change: the Result it added, its keys stored as plain data.
    const after = await holdings(s);
    expect(after.state).toEqual(before.state);
    expect(after.hidden).toEqual(before.hidden);
  });

  describe("code that does not end", () => {
    it.each([
      ["an infinite loop", "while (true) {}"],
      ["an empty for", "for (;;);"],
      [
        "a loop that catches the limit",
        "while (true) { try { for (;;) {} } catch {} }"
      ],
      [
        "a loop over an array it grows",
        "const a = [0]; for (const x of a) a.push(x + 1);"
      ],
      [
        "a growing array (a memory bomb made of steps)",
        "const a = []; while (true) a.push(a.length);"
      ]
    ])("stops %s at the step limit", async (_name, code) => {
      await refused(code, "the code ran more than 100000 steps");
    });

    it.each([
      ["recursion", "const f = (n) => f(n + 1) + 1; f(0);"],
      ["callbacks", "[1].forEach(function again() { [1].forEach(again); });"]
    ])("stops infinite %s", async (_name, code) => {
      await refused(code, /RangeError: Maximum call stack size exceeded/);
    });

    it.each([
      ["a doubling string", 'let s = "x"; while (true) s += s;'],
      ["a huge array", "new Array(2 ** 32)"],
      ["a huge buffer", "new ArrayBuffer(2 ** 40)"]
    ])(
      "answers a memory bomb of %s with its RangeError",
      async (_name, code) => {
        await refused(code, /RangeError/);
      }
    );

    it("answers a promise nothing can settle as hung", async () => {
      await refused(
        'await results.add({ name: "early", objects: [{}] }); await new Promise(() => {});',
        "code had hung and would never generate a response"
      );
    });

    it("gives up on a slow promise at the time limit, and the session goes on", async () => {
      const s = await refused(
        'await results.add({ name: "early", objects: [{}] }); setTimeout(() => results.add({ name: "late", objects: [{}] }), 0); await new Promise((r) => setTimeout(r, 600_000));',
        "the code did not finish within 1000 ms"
      );
      const next = await runCode(s, "1 + 1");
      expect(answer(next.content)).toEqual({ result: 2 });
    });
  });

  describe("output", () => {
    it("fails a run whose output passes the limit", async () => {
      await refused(
        'while (true) console.log("x".repeat(100));',
        "the output passed 4096 bytes"
      );
      await refused(
        'console.log("x".repeat(5000));',
        "the output passed 4096 bytes"
      );
    });

    it("survives console.log calling itself", async () => {
      const s = await coderSession();
      const nested = await runCode(
        s,
        'console.log({ get x() { console.log("inside"); return 1; } }); "done"'
      );
      expect(answer(nested.content)).toEqual({
        result: "done",
        stdout: '{"x":1}\n'
      });
      await refused(
        'const shout = () => { console.log("again"); shout(); }; shout();',
        /output passed 4096 bytes|RangeError/
      );
    });
  });
});
