/**
 * @module Scenario 15: the model's code in a fresh Dynamic Worker isolate
 * per call (roost-edge/code), on the bench worker's Worker Loader: a code
 * tool call against a plain synchronous one in the same session type, the
 * isolate's start alone, 100 sessions calling code at once, and what a
 * code call bills.
 */

import type { Api, BenchSession } from "./lib/api";
import type { Bill } from "./lib/bill";
import { interleave, median, percentile, progress, timed } from "./lib/stats";
import { ms, type Row, times } from "./lib/table";

const SCENARIO = "15 Code";

/**
 * Cloudflare's Sandbox SDK, its published P50 cold start: a reference
 * figure, not measured here (a container cannot run under wrangler dev).
 */
const SANDBOX_SDK_COLD_START_MS = 1370;

/** The least code that runs: the call's cost is the isolate's. */
const TRIVIAL = "return 6 * 7";

/**
 * What a code-analyst model writes: read the products through the store
 * capability (an RPC back into the session) and aggregate them.
 */
const ANALYST = `const [entry] = await store.find("catalog", "products");
const by = {};
for (const p of entry.objects) (by[p.animal + "/" + p.category] ??= []).push(p.rating);
return Object.fromEntries(Object.entries(by).map(([k, r]) => [k, Math.round(r.reduce((s, x) => s + x, 0) / r.length * 100) / 100]));`;

interface StepAnswer {
  observations: { is_error: boolean; content: string }[];
}

const codeStep = async (api: Api, s: BenchSession, code: string) => {
  const answer = (await api.step(s, "run_js", { code })) as StepAnswer;
  if (answer.observations[0]?.is_error !== false)
    throw new Error(`the code failed: ${answer.observations[0]?.content}`);
};

const isolateTimes = (api: Api, s: BenchSession) =>
  api.post(`/bench/isolates/${s.id}`, {}) as Promise<number[]>;

const billOf = (api: Api, s: BenchSession) =>
  api.post(`/bench/bill/${s.id}`, {}) as Promise<Bill>;

/** Rows and requests per call, over `calls` calls billed together. */
const perCall = (bill: Bill, calls: number) => ({
  read: (bill.rows.rowsRead + bill.deferred.rowsRead) / calls,
  written: (bill.rows.rowsWritten + bill.deferred.rowsWritten) / calls,
  requests: (bill.requests + bill.alarms) / calls
});

const fixed = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** (a) and (b): a code step ÷ a noop step, and the isolate start inside the object. */
const callAgainstPlain = async (api: Api, rounds: number): Promise<Row[]> => {
  const session = await api.create("bench-code");
  await api.reset(session);
  const samples = await interleave(
    {
      code: () => timed(() => codeStep(api, session, TRIVIAL)),
      plain: () => timed(() => api.step(session, "noop"))
    },
    { rounds, warmup: 10, label: "15 code: code vs plain steps" }
  );
  // Every run, warm-up included: each is a new isolate all the same.
  const starts = await isolateTimes(api, session);
  const code = samples("code");
  const plain = samples("plain");
  return [
    {
      scenario: SCENARIO,
      measure: `HTTP step with one code tool call (\`${TRIVIAL}\`: a fresh isolate, start → result) ÷ one with a plain synchronous tool call, same session type, p50 (${rounds} each, interleaved)`,
      roost: `${ms(median(code))} (p99 ${ms(percentile(code, 99))})`,
      reference: `${ms(median(plain))} (p99 ${ms(percentile(plain, 99))})`,
      ratio: times(median(code) / median(plain)),
      target: "",
      met: null
    },
    {
      scenario: SCENARIO,
      measure: `the isolate alone, inside the session: \`LOADER.load\` → the entrypoint's reply, p50 / p99 (${starts.length} runs)`,
      roost: `${ms(median(starts))} / ${ms(percentile(starts, 99))}`,
      reference: `the Sandbox SDK's published cold start, P50 ${ms(SANDBOX_SDK_COLD_START_MS)} (Cloudflare's figure, not measured here)`,
      // How many times shorter; local workerd's clock moves in whole
      // milliseconds, so the figure is coarse.
      ratio: `${fixed(SANDBOX_SDK_COLD_START_MS / median(starts))}× shorter`,
      target: "",
      met: null
    }
  ];
};

/** (c): `sessions` code-analyst sessions, each calling code `calls` times, all at once. */
const concurrent = async (
  api: Api,
  sessions: number,
  calls: number
): Promise<Row[]> => {
  progress(`15 code: ${sessions} code-analyst sessions`);
  const all = await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      const s = await api.create("code-analyst");
      await api.post(
        `/v1/sessions/${s.id}/reset`,
        { task_index: i % 136 },
        s.token
      );
      return s;
    })
  );
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    all.map(async (s) => {
      for (let i = 0; i < calls; i++) {
        try {
          latencies.push(await timed(() => codeStep(api, s, ANALYST)));
        } catch {
          errors += 1;
        }
      }
    })
  );
  const seconds = (performance.now() - started) / 1000;
  const starts = (
    await Promise.all(all.map((s) => isolateTimes(api, s)))
  ).flat();
  return [
    {
      scenario: SCENARIO,
      measure: `${sessions} code-analyst sessions at once, each ${calls} steps calling code that reads the store and aggregates it (one call in flight per session, so one Dynamic Worker per Durable Object): calls/s, step p50 / p99, errors`,
      roost: `${fixed(latencies.length / seconds)} calls/s; ${ms(median(latencies))} / ${ms(percentile(latencies, 99))}; ${errors} errors of ${sessions * calls}`,
      reference: `isolate alone under that load: ${ms(median(starts))} / ${ms(percentile(starts, 99))}`,
      ratio: `${fixed(latencies.length / seconds)} calls/s`,
      target: "0 errors",
      met: errors === 0
    }
  ];
};

/** (d): what one code call bills (ROOST_METER=1), beside a plain step's. */
const billed = async (api: Api, calls: number): Promise<Row[]> => {
  progress("15 code: the bill of a code call");
  const analyst = await api.create("code-analyst");
  await api.reset(analyst);
  await billOf(api, analyst);
  for (let i = 0; i < calls; i++) await codeStep(api, analyst, ANALYST);
  const code = perCall(await billOf(api, analyst), calls);
  const plain = await api.create("bench-code");
  await api.reset(plain);
  await api.step(plain, "noop");
  await billOf(api, plain);
  for (let i = 0; i < calls; i++) await api.step(plain, "noop");
  const noop = perCall(await billOf(api, plain), calls);
  const line = (b: typeof code) =>
    `${fixed(b.written)} rows written, ${fixed(b.read)} read, ${fixed(b.requests)} requests`;
  return [
    {
      scenario: SCENARIO,
      measure: `billed per code-analyst step calling code that reads the store (${calls} steps; the isolate's calls back into the session are RPC within the request, not requests)`,
      roost: line(code),
      reference: `a plain step: ${line(noop)}`,
      ratio: `${fixed(code.written)} rows written`,
      target: "",
      met: null
    }
  ];
};

export const codeScenario = async (api: Api): Promise<Row[]> => {
  const rounds = Number(process.env.BENCH_CODE_ROUNDS ?? 200);
  const sessions = Number(process.env.BENCH_CODE_SESSIONS ?? 100);
  return [
    ...(await callAgainstPlain(api, rounds)),
    ...(await concurrent(api, sessions, 5)),
    ...(await billed(api, 5))
  ];
};
