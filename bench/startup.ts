/**
 * @module Scenario 9: worker startup. Roost's deployable worker (the
 * production wrangler.toml) and a one-route Hono worker
 * (bench/startup/wrangler.toml), each built as a deploy builds it, are
 * loaded into a fresh workerd (Miniflare, one per load) again and again,
 * alternately. As in `wrangler check startup`, an entry module imports the
 * worker on the first request, so that request pays for compiling and
 * running the worker's top level; the entry then hands it `GET /health`.
 * Each load times that first request and a second one (warm: the harness,
 * nearly alone), and counts the CPU time workerd spends on each (Linux's
 * per-thread schedstat, in nanoseconds): on a shared machine CPU time
 * varies far less than wall time, and more finely than a V8 profile's
 * samples, which leave the Hono worker's startup a handful.
 */

import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Miniflare } from "miniflare";
import { median, progress } from "./lib/stats";
import { ms, type Row, times } from "./lib/table";

/** Issues 32 and 48: the demo worker's cold isolate's first request at most this many times the one-route Hono worker's CPU. */
const TARGET = 4;
/** Issue 48: the core worker's (bench/core: one environment, no layer). */
const CORE_TARGET = 2;

/** Loads per worker (each about half a second here). */
const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 30);

interface Built {
  dir: string;
  main: string;
  compatibilityDate: string;
}

const build = async (
  root: string,
  config: string,
  out: string
): Promise<Built> => {
  await promisify(execFile)(
    join(root, "node_modules", ".bin", "wrangler"),
    ["deploy", "--dry-run", "-c", config, "--outdir", out],
    { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: "false" } }
  );
  const main = readdirSync(out).find((file) => file.endsWith(".js"));
  const date = readFileSync(config, "utf8").match(
    /^compatibility_date = "([^"]+)"/m
  );
  if (!main || !date) throw new Error(`no script or date for ${config}`);
  return { dir: out, main, compatibilityDate: date[1]! };
};

/** Imports the worker on the first request, then hands every request to it. */
const entry = (main: string): string => `let worker;
export default {
  async fetch(request, env, ctx) {
    worker ??= (await import(${JSON.stringify(`./${main}`)})).default;
    return worker.fetch(request, {}, ctx);
  }
};
`;

/** The workerd processes this process started, by pid. */
const workerds = (): Set<number> => {
  const found = new Set<number>();
  for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      if (
        stat.slice(stat.indexOf("(") + 1, close) === "workerd" &&
        ppid === process.pid
      )
        found.add(Number(pid));
    } catch {
      // exited meanwhile
    }
  }
  return found;
};

/** Milliseconds of CPU all of a process's threads have run so far. */
const cpuMs = (pid: number): number => {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(
        readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]
      );
    } catch {
      // exited meanwhile
    }
  }
  return ns / 1e6;
};

interface Request {
  /** Wall time, client-side. */
  ms: number;
  /** workerd's CPU time meanwhile. */
  cpu: number;
}

const get = async (mf: Miniflare, pid: number): Promise<Request> => {
  const cpu = cpuMs(pid);
  const started = performance.now();
  const response = await mf.dispatchFetch("http://localhost/health");
  const body = await response.text();
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`GET /health: ${response.status} ${body}`);
  return { ms, cpu: cpuMs(pid) - cpu };
};

/** A fresh workerd with the worker not yet imported: two requests to it. */
const load = async (
  worker: Built
): Promise<{ first: Request; second: Request }> => {
  const before = workerds();
  const mf = new Miniflare({
    compatibilityDate: worker.compatibilityDate,
    modulesRoot: worker.dir,
    modules: [
      {
        type: "ESModule",
        path: join(worker.dir, "startup-entry.js"),
        contents: entry(worker.main)
      },
      { type: "ESModule", path: join(worker.dir, worker.main) }
    ]
  });
  try {
    await mf.ready;
    const [pid, ...others] = [...workerds()].filter((p) => !before.has(p));
    if (pid === undefined || others.length > 0)
      throw new Error("cannot tell which workerd is the new one");
    return { first: await get(mf, pid), second: await get(mf, pid) };
  } finally {
    await mf.dispose();
  }
};

interface Samples {
  first: Request[];
  second: Request[];
}

export const startup = async (root: string): Promise<Row[]> => {
  const out = mkdtempSync(join(tmpdir(), "roost-startup-"));
  try {
    progress("9 startup: building the workers (wrangler deploy --dry-run)");
    const workers = {
      roost: await build(root, join(root, "wrangler.toml"), join(out, "roost")),
      core: await build(
        root,
        join(root, "bench", "core", "wrangler.toml"),
        join(out, "core")
      ),
      hono: await build(
        root,
        join(root, "bench", "startup", "wrangler.toml"),
        join(out, "hono")
      )
    };
    const samples: Record<keyof typeof workers, Samples> = {
      roost: { first: [], second: [] },
      core: { first: [], second: [] },
      hono: { first: [], second: [] }
    };
    // Round 0 warms the file cache and is not recorded. The order turns
    // every round (A B C, B C A, …): with one order, the same worker
    // measured a third slower in wall time first than second here.
    const order = ["roost", "core", "hono"] as const;
    for (let round = 0; round <= ROUNDS; round++) {
      const turn = round % order.length;
      for (const key of [...order.slice(turn), ...order.slice(0, turn)]) {
        const { first, second } = await load(workers[key]);
        if (round === 0) continue;
        samples[key].first.push(first);
        samples[key].second.push(second);
      }
      if (round % 10 === 0 && round > 0)
        progress(`8 startup: round ${round}/${ROUNDS}`);
    }
    const { roost, core, hono } = samples;
    const cpu = (s: Samples) => median(s.first.map((r) => r.cpu));
    const wall = (s: Samples) => median(s.first.map((r) => r.ms));
    const second = (s: Samples) => median(s.second.map((r) => r.cpu));
    const above = (s: Samples) =>
      median(s.first.map((r, i) => r.cpu - s.second[i]!.cpu));
    const scenario = "9 Startup";
    return [
      {
        scenario,
        measure: `startup CPU: workerd's CPU time for the first request to a fresh isolate (it imports the worker, then \`GET /health\`) ÷ a one-route Hono worker's, median of ${ROUNDS}`,
        roost: ms(cpu(roost)),
        reference: `Hono ${ms(cpu(hono))}; a second request: ${ms(second(roost))} / ${ms(second(hono))}`,
        ratio: times(cpu(roost) / cpu(hono)),
        target: `≤ ${TARGET}× (issues 32, 48)`,
        met: cpu(roost) / cpu(hono) <= TARGET
      },
      {
        scenario,
        measure:
          "the same for the core worker (`bench/core`: one environment over HTTP and the session socket, no layer)",
        roost: ms(cpu(core)),
        reference: `Hono ${ms(cpu(hono))}; a second request: ${ms(second(core))}`,
        ratio: times(cpu(core) / cpu(hono)),
        target: `≤ ${CORE_TARGET}× (issue 48)`,
        met: cpu(core) / cpu(hono) <= CORE_TARGET
      },
      {
        scenario,
        measure:
          "the same less the second request's (the worker's startup alone, without the harness)",
        roost: ms(above(roost)),
        reference: `Hono ${ms(above(hono))}`,
        ratio: times(above(roost) / above(hono)),
        target: "— (reported)",
        met: null
      },
      {
        scenario,
        measure: "that first request's wall time, client-side",
        roost: ms(wall(roost)),
        reference: `Hono ${ms(wall(hono))}`,
        ratio: times(wall(roost) / wall(hono)),
        target: "— (reported)",
        met: null
      }
    ];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
};
