/**
 * @module Scenario 11, the bill (`npm run bench -- bill`): what each
 * operation costs at Cloudflare's prices (lib/prices.ts). The server meters
 * every session object (ROOST_METER=1: storage/row-meter.ts, and the bench
 * worker's Session counts requests, socket messages and alarms); the bench
 * reads each object's bill at /bench/bill/:id once its operations are done.
 * Beside Roost, in the same run: the bare DO's one-row append and the Agents
 * SDK's `setState`, metered with the same RowMeter.
 */

import WebSocket from "ws";
import { STUB_MODEL } from "../test/node/fake-vllm";
import { agentRow, baselineRow } from "./bill-baselines";
import {
  billOf,
  counterRows,
  MAX_FOLDS,
  type Measured,
  N,
  readBill,
  run,
  STEPS_PER_EPISODE,
  type Stored,
  storedBytes
} from "./bill-measure";
import { noopStepRows } from "./bill-steps";
import { taskStatsRows } from "./bill-task-stats";
import { conversation } from "./gateway";
import type { Api, BenchSession } from "./lib/api";
import { stepBody } from "./lib/api";
import { PRICES, perMillion } from "./lib/prices";
import { progress } from "./lib/stats";
import { markdownTable, ms, type Row } from "./lib/table";

const FORK_OBJECTS = 10_000;

/** Waits until alarms a reset or a run scheduled (purge, passes) have run. */
const settle = () => new Promise((r) => setTimeout(r, 1500));

const socketStep = async (s: BenchSession, steps: number) => {
  const ws = new WebSocket(s.wsUrl, ["roost.v1", `roost.token.${s.token}`], {
    perMessageDeflate: false
  });
  const replies = new Map<string, () => void>();
  await new Promise<void>((resolve, reject) => {
    ws.on("error", reject);
    ws.on("message", (data: Buffer) => {
      const frame = JSON.parse(data.toString("utf8")) as {
        type: string;
        id?: string;
        ok?: boolean;
      };
      if (frame.type === "session.snapshot") resolve();
      if (frame.type === "reply" && frame.id !== undefined) {
        if (frame.ok === false) throw new Error(data.toString("utf8"));
        replies.get(frame.id)?.();
      }
    });
  });
  const step = (i: number) =>
    new Promise<void>((resolve) => {
      replies.set(`s${i}`, resolve);
      ws.send(
        JSON.stringify({
          type: "step",
          id: `s${i}`,
          ...(stepBody("incr") as object)
        })
      );
    });
  return { step, close: () => ws.close(), steps };
};

const roostRows = async (
  api: Api,
  pgid: number,
  stored: Stored
): Promise<Measured[]> => {
  const out: Measured[] = [];
  const sessions: BenchSession[] = [];
  progress("11 bill: create");
  const create = await run(pgid, N, async () => {
    sessions.push(await api.create("counter", { target: 1_000_000 }));
  });
  out.push({
    operation: "create",
    ...create,
    ...(await billOf(api, sessions, N))
  });
  stored.created = await storedBytes(api, sessions);

  progress("11 bill: reset");
  const reset = await run(pgid, N, (i) => api.reset(sessions[i]!));
  await settle();
  out.push({
    operation: "reset (first)",
    ...reset,
    ...(await billOf(api, sessions, N))
  });

  progress("11 bill: counter steps over HTTP");
  const step = await run(pgid, N * STEPS_PER_EPISODE, (i) =>
    api.step(sessions[i % N]!, "incr")
  );
  out.push({
    operation: "counter step (HTTP)",
    ...step,
    ...(await billOf(api, sessions, N * STEPS_PER_EPISODE))
  });
  stored.afterEpisode = await storedBytes(api, sessions);

  progress("11 bill: reset after 10 steps, and its purge");
  const again = await run(pgid, N, (i) => api.reset(sessions[i]!));
  await settle();
  out.push({
    operation: `reset after ${STEPS_PER_EPISODE} steps (+ its purge)`,
    ...again,
    ...(await billOf(api, sessions, N))
  });

  out.push(...(await noopStepRows(api, pgid)));

  progress("11 bill: model calls through the gateway");
  // Five calls a session, each a turn longer (the server's upstream is
  // the vLLM stand-in run.ts starts, token ids on).
  const CALLS = 5;
  const before = await storedBytes(api, sessions);
  const calls = await run(pgid, N * CALLS, (i) =>
    api.post(
      `/v1/sessions/${sessions[i % N]!.id}/model/v1/chat/completions`,
      { model: STUB_MODEL, messages: conversation(Math.floor(i / N)) },
      sessions[i % N]!.token
    )
  );
  const grown = (await storedBytes(api, sessions)) - before;
  out.push({
    operation: `model call through the gateway (recorded with its token ids; ${Math.round(grown / CALLS)} B stored)`,
    ...calls,
    ...(await billOf(api, sessions, N * CALLS))
  });

  progress("11 bill: counter steps over the socket");
  const s = sessions[0]!;
  const socket = await socketStep(s, N * STEPS_PER_EPISODE);
  // The socket's first step is billed apart, with the upgrade (one
  // request per socket, not per step). The steps after it pass MAX_FOLDS
  // folds, so they include the checkpoints that bound a cold read.
  await socket.step(-1);
  await readBill(api, s);
  const viaSocket = await run(pgid, socket.steps, (i) => socket.step(i));
  out.push({
    operation: "counter step (socket)",
    ...viaSocket,
    ...(await billOf(api, [s], socket.steps))
  });
  socket.close();

  progress("11 bill: counter calls over MCP (2026-07-28)");
  const mcp = await run(pgid, N * STEPS_PER_EPISODE, (i) =>
    api.mcpCall(sessions[i % N]!, "incr")
  );
  out.push({
    operation: "counter tools/call (MCP 2026-07-28)",
    ...mcp,
    ...(await billOf(api, sessions, N * STEPS_PER_EPISODE))
  });
  const tasked = await run(pgid, N * STEPS_PER_EPISODE, (i) =>
    api.mcpCall(sessions[i % N]!, "incr", true)
  );
  out.push({
    operation: "counter tools/call (MCP, tasks extension declared)",
    ...tasked,
    ...(await billOf(api, sessions, N * STEPS_PER_EPISODE)),
    note: "each call a task: its row, kept for its TTL"
  });

  progress("11 bill: a tree run (four passes)");
  const tree = await api.create("bench");
  await api.reset(tree);
  await readBill(api, tree);
  const runs = 5;
  const passes = await run(pgid, runs, async () => {
    const { run_id } = (await api.post(
      `/v1/sessions/${tree.id}/runs`,
      { prompt: "store three objects" },
      tree.token
    )) as { run_id: string };
    await api.json(
      "GET",
      `/v1/sessions/${tree.id}/runs/${run_id}?wait=30`,
      undefined,
      tree.token
    );
  });
  out.push({
    operation: "tree pass (a four-pass run ÷ 4)",
    cpuMs: passes.cpuMs / 4,
    seconds: passes.seconds / 4,
    ...(await billOf(api, [tree], runs * 4)),
    note: "passes run in the alarm"
  });

  progress(`11 bill: fork of a ${FORK_OBJECTS}-object session`);
  const source = await api.create("bench");
  await api.reset(source);
  await api.seed(source, FORK_OBJECTS);
  await readBill(api, source);
  const copies: BenchSession[] = [];
  const fork = await run(pgid, 1, async () => {
    const made = (await api.post(
      `/v1/sessions/${source.id}/fork`,
      { count: 1 },
      source.token
    )) as { sessions: { session_id: string; token: string; ws_url: string }[] };
    for (const c of made.sessions)
      copies.push({ id: c.session_id, token: c.token, wsUrl: c.ws_url });
  });
  await settle();
  out.push({
    operation: `fork into 1 copy, ${FORK_OBJECTS.toLocaleString("en")} objects (source + copy)`,
    ...fork,
    ...(await billOf(api, [source, ...copies], 1))
  });
  return out;
};

const dollars = (x: number): string =>
  x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(3)}`;
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
const num = (x: number): string =>
  Number.isInteger(x) ? String(x) : x.toFixed(2);

export const billScenario = async (api: Api, pgid: number): Promise<Row[]> => {
  const stored: Stored = { created: 0, afterEpisode: 0 };
  const measured = [
    ...(await roostRows(api, pgid, stored)),
    ...(await taskStatsRows(api, pgid, N, run, billOf)),
    await baselineRow(api, pgid),
    await agentRow(api, pgid)
  ];
  const find = (prefix: string) =>
    measured.find((m) => m.operation.startsWith(prefix))!;
  const [create, reset, step] = [
    find("create"),
    find("reset (first)"),
    find("counter step (HTTP)")
  ];
  const life: Measured = {
    operation: `a session: create + reset + ${STEPS_PER_EPISODE} HTTP steps`,
    cpuMs: create.cpuMs + reset.cpuMs + STEPS_PER_EPISODE * step.cpuMs,
    seconds: create.seconds + reset.seconds + STEPS_PER_EPISODE * step.seconds,
    rowsWritten:
      create.rowsWritten +
      reset.rowsWritten +
      STEPS_PER_EPISODE * step.rowsWritten,
    rowsRead:
      create.rowsRead + reset.rowsRead + STEPS_PER_EPISODE * step.rowsRead,
    requests:
      create.requests + reset.requests + STEPS_PER_EPISODE * step.requests
  };
  const table = markdownTable(
    [
      "operation",
      "rows written",
      "(of them deferred)",
      "rows read",
      "requests",
      "workerd CPU",
      "wall (client)",
      "$ per million",
      "of it rows written"
    ],
    [...measured, life].map((m) => {
      const cost = perMillion(m);
      return [
        m.operation,
        num(m.rowsWritten),
        m.deferredWritten ? num(m.deferredWritten) : "",
        num(m.rowsRead),
        num(m.requests),
        ms(m.cpuMs),
        ms(m.seconds * 1000),
        dollars(cost.total),
        dollars(cost.rows)
      ];
    })
  );
  process.stdout.write(
    `\n## 11 The bill (prices as published at ${PRICES.source}, read ${PRICES.readOn})\n\n${table}\n\nStored per idle counter session (the database's size, median of ${N}): ${kib(stored.created)} once created, ${kib(stored.afterEpisode)} after a reset and ${STEPS_PER_EPISODE} steps.\n\n`
  );
  const bare = find("bare DO");
  const sdk = find("Agents SDK");
  const untargeted = { scenario: "11 Bill", reference: "—", ratio: "—" };
  // Each operation's rows and price, so the results file carries the bill.
  const perOperation: Row[] = [...measured, life].map((m) => ({
    scenario: "11 Bill",
    measure: `${m.operation}: rows written (read); $ per million`,
    roost: `${num(m.rowsWritten)} (${num(m.rowsRead)})`,
    reference: "—",
    ratio: dollars(perMillion(m).total),
    target: "—",
    met: null
  }));
  return [
    ...perOperation,
    {
      scenario: "11 Bill",
      measure: "rows written per counter step (HTTP) ÷ the bare DO's append",
      roost: num(step.rowsWritten),
      reference: num(bare.rowsWritten),
      ratio: `${(step.rowsWritten / bare.rowsWritten).toFixed(1)}×`,
      target: "—",
      met: null
    },
    {
      scenario: "11 Bill",
      measure: "rows written per counter step ÷ the Agents SDK's setState",
      roost: num(step.rowsWritten),
      reference: num(sdk.rowsWritten),
      ratio: `${(step.rowsWritten / sdk.rowsWritten).toFixed(1)}×`,
      target: "—",
      met: null
    },
    {
      scenario: "11 Bill",
      // One a step, and the tables when the folds reach MAX_FOLDS: the
      // HTTP steps' episodes end before that.
      measure: `rows written per counter step (socket: ${N * STEPS_PER_EPISODE} steps of one episode, a checkpoint every ${MAX_FOLDS + 1})`,
      roost: num(find("counter step (socket)").rowsWritten),
      reference: "—",
      ratio: "—",
      target: `≤ ${num(counterRows(N * STEPS_PER_EPISODE))}`,
      met:
        find("counter step (socket)").rowsWritten <=
        counterRows(N * STEPS_PER_EPISODE)
    },
    {
      ...untargeted,
      measure: "rows written per counter step (HTTP: 10-step episodes)",
      roost: num(step.rowsWritten),
      target: "≤ 2 (goal 1)",
      met: step.rowsWritten <= 2
    },
    {
      ...untargeted,
      measure: `rows written per session (create + reset + ${STEPS_PER_EPISODE} steps)`,
      roost: num(life.rowsWritten),
      target: "≤ 25",
      met: life.rowsWritten <= 25
    },
    {
      ...untargeted,
      measure: "rows written to create a session",
      roost: num(create.rowsWritten),
      target: "≤ 5",
      met: create.rowsWritten <= 5
    },
    {
      ...untargeted,
      measure: "stored bytes per idle session (created; after an episode)",
      roost: `${kib(stored.created)}; ${kib(stored.afterEpisode)}`,
      target: "—",
      met: null
    },
    {
      ...untargeted,
      measure: `$ per million sessions (create + reset + ${STEPS_PER_EPISODE} steps)`,
      roost: dollars(perMillion(life).total),
      target: "≤ $25",
      met: perMillion(life).total <= 25
    }
  ];
};
