// Limits docs/11-limits.md states with this file as the one that goes past
// them: each test crosses its limit by one (or by a merge that does), checks
// the answer a client or the model gets, and that nothing else moved.
import { describe, expect, it } from "vitest";
import { readBody } from "../../src/code/capabilities";
import type { ErrorBody } from "../../src/errors";
import type { RescoreResponse, StepResponse } from "../../src/protocol";
import { answer, coderSession, holdings, runCode } from "./code-helpers";
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
import {
  err,
  events,
  newResetSession,
  snapshot,
  stubOf,
  toolAction
} from "./session-helpers";

const KIB = 1024;
const MIB = 1024 * KIB;

/** Runs `refused` and checks the session reads exactly as before over HTTP. */
const unchanged = async (s: TestSession, refused: () => Promise<void>) => {
  const before = await readable(s);
  await refused();
  expect(await readable(s)).toBe(before);
};

/** The field a validation error names (issuesToErrorBody's `details.issues`). */
const fieldsOf = (error: ErrorBody) =>
  (error.details as { issues: { path: string }[] }).issues.map((i) => i.path);

/**
 * Code of exactly `chars` characters that, if it runs, adds a Result:
 * the store shows whether the code ran, whatever the tool answered.
 */
const codeOf = (chars: number) => {
  const body = `await results.add({ name: "ran", objects: [{ n: 1 }] }); return 1;`;
  return body + " ".repeat(chars - body.length);
};

describe("a code tool's codeChars (100 000 by default)", () => {
  it("refuses code of 100 001 characters as an error tool message naming the field, running nothing", async () => {
    const s = await coderSession();
    const before = await holdings(s);
    const over = await runCode(s, codeOf(100_001));
    expect(over.is_error).toBe(true);
    // The model reads which argument was wrong and by how much.
    expect(over.content).toMatch(/^Invalid arguments for run_js: code: /);
    expect(over.content).toContain("100000");
    expect(over.results).toEqual([]);
    expect(await holdings(s)).toEqual(before);
    // The same code one character shorter runs and adds its Result: the
    // refusal above was the limit, not the code.
    const at = await runCode(s, codeOf(100_000));
    expect(at.is_error).toBe(false);
    expect(at.results.map((r) => r.name)).toEqual(["ran"]);
  });
});

describe("stateValueBytes over HTTP (1 MiB by default)", () => {
  // A PATCH body is held to requestBodyBytes (also 1 MiB), so one write
  // cannot carry a value past the limit; a merge that grows the value can.
  // `notes` (lab) merges lists; each string stays under stringBytes.
  const notes = (kb: number, count: number) =>
    Array.from({ length: count }, (_, i) => `${i}`.padEnd(kb * KIB, "n"));

  it("answers 413 naming stateValueBytes when a PATCH's merge passes it, and the state stays as it was", async () => {
    const s = await createResetSession({ environment: "lab" });
    const half = notes(120, 5); // about 600 KiB as JSON
    const first = await s.call(
      "/state",
      send("PATCH", { key: "notes", value: half })
    );
    expect(first.status).toBe(200);
    await first.body?.cancel();
    await unchanged(s, async () => {
      const res = await s.call(
        "/state",
        send("PATCH", { key: "notes", value: half })
      );
      expect(res.status).toBe(413);
      const error = await errorOf(res);
      expect(error.code).toBe("payload_too_large");
      expect(error.details).toMatchObject({
        limit: "stateValueBytes",
        max: MIB,
        key: "notes"
      });
      expect((error.details as { bytes: number }).bytes).toBeGreaterThan(MIB);
    });
    const read = await json<{ state: { notes: string[] } }>(
      await s.call("/state")
    );
    expect(read.state.notes).toEqual(half);
  });
});

describe("stateValueBytes for a step's action (1 MiB by default)", () => {
  // An HTTP body is held to requestBodyBytes, so only a caller of the
  // object's RPC can send an action this large.
  it("refuses an action over it as JSON before any tool runs, and the session stays as it was", async () => {
    const { stub } = await newResetSession("counter");
    const before = await snapshot(stub);
    const action = {
      ...toolAction("incr"),
      content: "a".repeat(MIB)
    };
    const refused = err(await stub.step({ action }));
    expect(refused.code).toBe("payload_too_large");
    expect(refused.details).toMatchObject({
      limit: "stateValueBytes",
      max: MIB,
      key: "messages[0]"
    });
    expect(await snapshot(stub)).toEqual(before);
  });
});

describe("re-scoring's limit (at most 100 episodes a page)", () => {
  it("answers 400 naming limit for 101, changing nothing, and re-scores with 100", async () => {
    const s = await createResetSession({ environment: "regraded" });
    await step(s, "guess", { n: 5 });
    const grader = await withScope(s, "grade");
    const stub = stubOf(s.session_id);
    const logged = await events(stub);
    await unchanged(s, async () => {
      const res = await grader.call(
        "/rescore",
        send("POST", { rubric: "rubric", limit: 101 })
      );
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe("invalid_request");
      expect(fieldsOf(error)).toEqual(["limit"]);
    });
    expect(await events(stub)).toEqual(logged);
    // At the limit the same request is a page.
    const res = await grader.call(
      "/rescore",
      send("POST", { rubric: "rubric", limit: 100 })
    );
    expect(res.status).toBe(200);
    const page = await json<RescoreResponse>(res);
    expect(page.episodes.map((e) => e.episode)).toEqual([1]);
  });
});

describe("a curriculum draw's task_count (at most 1 000 000)", () => {
  const sample = (body: unknown) =>
    call("/v1/environments/pupil/task-stats/sample", send("POST", body));

  // `drill` is a generated split: it has no size of its own to refuse
  // task_count by, so only the limit stands between it and the draw.
  it("answers 400 naming task_count for 1 000 001, and draws from 1 000 000", async () => {
    const over = await sample({
      group_size: 4,
      count: 8,
      seed: 1,
      split: "drill",
      task_count: 1_000_001
    });
    expect(over.status).toBe(400);
    const error = await errorOf(over);
    expect(error.code).toBe("invalid_request");
    expect(fieldsOf(error)).toEqual(["task_count"]);
    const at = await sample({
      group_size: 4,
      count: 8,
      seed: 1,
      split: "drill",
      task_count: 1_000_000
    });
    expect(at.status).toBe(200);
    const drawn = await json<{ task_count: number; task_indices: number[] }>(
      at
    );
    expect(drawn.task_count).toBe(1_000_000);
    expect(drawn.task_indices).toHaveLength(8);
    expect(drawn.task_indices.every((i) => i >= 0 && i < 1_000_000)).toBe(true);
  });
});

describe("toolContentBytes through a session (256 KiB by default)", () => {
  // lab's `note` answers `noted <text>`: with text of 256 KiB, the largest
  // string a body may carry, its tool message is 6 bytes over the limit.
  const LIMIT = 256 * KIB;
  const PREFIX = "noted ";

  /** The step's one observation, which must be a tool message. */
  const observed = (out: StepResponse) => {
    const [message] = out.observations;
    if (message?.role !== "tool") throw new Error("expected a tool message");
    return message;
  };

  /** The last tool message of the transcript, as the model reads it next. */
  const lastToolMessage = async (s: TestSession) => {
    const page = await json<{ messages: { role: string; content: string }[] }>(
      await s.call(`/messages?limit=1000&max_bytes=${4 * MIB}`)
    );
    return page.messages.filter((m) => m.role === "tool").at(-1)?.content;
  };

  it("caps a tool message past the limit with the marker, and leaves one at the limit whole", async () => {
    const s = await createResetSession({ environment: "lab" });
    const whole = "w".repeat(LIMIT - PREFIX.length);
    const atLimit = observed(await step(s, "note", { text: whole }));
    expect(atLimit.content).toBe(`${PREFIX}${whole}`);
    expect(await lastToolMessage(s)).toBe(`${PREFIX}${whole}`);

    const long = "x".repeat(LIMIT);
    const over = observed(await step(s, "note", { text: long }));
    // The tool succeeded; only what the model reads of it was cut.
    expect(over.is_error).toBe(false);
    const capped = `${PREFIX}${long.slice(0, LIMIT - PREFIX.length)}\n[truncated: 6 more bytes]`;
    expect(over.content).toBe(capped);
    expect(await lastToolMessage(s)).toBe(capped);
    // What the tool did is kept whole: the cap is on the message only.
    const read = await json<{ state: { notes: string[] } }>(
      await s.call("/state")
    );
    expect(read.state.notes).toEqual([whole, long]);
  });
});

describe("a code run's network maxRequests (10 by default)", () => {
  // The test machines reach no host, so each allowed fetch fails at the
  // network; it still counts, and the eleventh is refused before any.
  it("refuses the eleventh fetch of a run, naming the limit", async () => {
    const s = await coderSession();
    const out = await runCode(
      s,
      `const seen = [];
       for (let i = 0; i < 11; i++) {
         try { await fetch("https://api.example.com/" + i); seen.push("fetched"); }
         catch (e) { seen.push(String(e.message)); }
       }
       return seen;`,
      "net_js"
    );
    const seen = answer(out.content).result as string[];
    expect(seen).toHaveLength(11);
    expect(seen.slice(0, 10).join("\n")).not.toContain("at most 10 times");
    expect(seen[10]).toContain("a run may fetch at most 10 times");
  });
});

describe("a code run's network maxBytes (1 MiB by default)", () => {
  // No host answers here, so the cap is crossed by the reader every
  // fetch's body goes through, over a real streamed Response.
  it("gives up a body one byte past it and cancels the stream", async () => {
    let pulled = 0;
    let cancelled = false;
    const streamed = (total: number) =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (pulled >= total) return controller.close();
            const chunk = Math.min(64 * KIB, total - pulled);
            pulled += chunk;
            controller.enqueue(new Uint8Array(chunk).fill(120));
          },
          cancel() {
            cancelled = true;
          }
        })
      );
    expect(await readBody(streamed(MIB), MIB)).toHaveLength(MIB);
    pulled = 0;
    await expect(readBody(streamed(64 * MIB), MIB)).rejects.toThrow(
      `the response body passed ${MIB} bytes.`
    );
    // It stopped reading at the cap, not at the end of the body.
    expect(pulled).toBeLessThanOrEqual(MIB + 128 * KIB);
    expect(cancelled).toBe(true);
  });
});
