#!/usr/bin/env node
/** @module The `roost-edge` command: rollouts against a Roost server from the shell (Node only). */

import { createWriteStream } from "node:fs";
import type { Writable } from "node:stream";
import { RoostClientError } from "../client/client-error";
import { createClient } from "../client/http";
import { rollout } from "../client/rollout";
import type { Trajectory } from "../client/trajectory";
import { parseArgs, type RolloutCommand, USAGE, UsageError } from "./args";
import { CheckError, check } from "./check";
import { runDevCommand } from "./dev-command";
import { runInit } from "./init";
import { loadPolicy } from "./policies";
import { formatSummary, ProgressReporter } from "./progress";
import { runRescore } from "./rescore";
import { readTaskStats, writeTaskStats } from "./task-stats-file";
import { runValidate } from "./validate";

const main = async (): Promise<number> => {
  let command: ReturnType<typeof parseArgs>;
  try {
    command = parseArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (command.command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.command === "check") return runCheck(command.files);
  if (command.command === "rescore")
    return runRescore(command, {
      stdout: (text) => process.stdout.write(text),
      log: (text) => process.stderr.write(text)
    });
  if (command.command === "validate")
    return runValidate(command, {
      stdout: (text) => process.stdout.write(text),
      log: (text) => process.stderr.write(text)
    });
  if (command.command === "init") return runInit(command, process.cwd());
  if (command.command === "dev") return runDevCommand(command, process.cwd());
  if (command.command === "environments") {
    const envs = await createClient({ baseUrl: command.url }).environments();
    for (const env of envs)
      process.stdout.write(
        `${env.name}\t${env.tools.map((t) => t.function.name).join(",")}\t${env.description}\n`
      );
    return 0;
  }
  return runRollout(command);
};

const runCheck = (files: string[]): number => {
  try {
    const result = check(files, { color: process.stdout.isTTY === true });
    process.stdout.write(result.report);
    const checked = `${result.files} file${result.files === 1 ? "" : "s"}`;
    process.stdout.write(
      result.errors === 0
        ? `Checked ${checked}: no type errors.\n`
        : `${result.errors} type error${result.errors === 1 ? "" : "s"} in ${checked} and what they import.\n`
    );
    return result.errors === 0 ? 0 : 1;
  } catch (error) {
    if (!(error instanceof CheckError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
};

const runRollout = async (command: RolloutCommand): Promise<number> => {
  let policy: Awaited<ReturnType<typeof loadPolicy>>;
  const policies: Record<string, typeof policy> = {};
  let taskStats: ReturnType<typeof readTaskStats> | undefined;
  try {
    const load = (spec: string) =>
      loadPolicy(spec, {
        ...(command.seed === undefined ? {} : { seed: command.seed }),
        ...(command.model === undefined ? {} : { model: command.model })
      });
    policy = await load(command.policy);
    for (const [agent, spec] of Object.entries(command.agentPolicies ?? {}))
      policies[agent] = await load(spec);
    if (command.taskStats !== undefined)
      taskStats = readTaskStats(command.taskStats, command.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const out: Writable =
    command.out === "-" ? process.stdout : createWriteStream(command.out);
  const writer = orderedLines(out);
  const progress = new ProgressReporter({
    write: (text) => process.stderr.write(text),
    isTTY: process.stderr.isTTY === true
  });
  // The first Ctrl-C lets running episodes finish their step and delete
  // their sessions; a second one quits at once.
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    process.stderr.write(
      "\nStopping: finishing running steps and deleting sessions (Ctrl-C again to quit now)…\n"
    );
    abort.abort();
  };
  process.on("SIGINT", onSignal);
  try {
    const { summary } = await rollout({
      baseUrl: command.url,
      environment: command.env,
      policy,
      ...(command.agentPolicies === undefined ? {} : { policies }),
      episodes: command.episodes,
      concurrency: command.concurrency,
      ...(command.groupSize === undefined
        ? {}
        : { groupSize: command.groupSize }),
      ...(command.maxSteps === undefined ? {} : { maxSteps: command.maxSteps }),
      ...(command.taskIndex === undefined
        ? {}
        : { taskIndex: command.taskIndex }),
      ...(command.split === undefined ? {} : { split: command.split }),
      ...(command.sampler === undefined ? {} : { sampler: command.sampler }),
      ...(command.seed === undefined ? {} : { seed: command.seed }),
      ...(command.taskCount === undefined
        ? {}
        : { taskCount: command.taskCount }),
      ...(command.successThreshold === undefined
        ? {}
        : { successThreshold: command.successThreshold }),
      ...(taskStats === undefined ? {} : { taskStats }),
      ...(command.apiKey ? { apiKey: command.apiKey } : {}),
      ...(command.judge ? { groupJudge: command.judge } : {}),
      ...(command.modelGateway ? { modelGateway: true } : {}),
      ...(command.branches ? { branches: command.branches } : {}),
      signal: abort.signal,
      onProgress: (p) => progress.update(p),
      onEpisode: (t) => writer.add(t)
    });
    progress.finish(summary);
    await writer.end();
    // Also after Ctrl-C: the groups that finished still count.
    if (command.taskStats !== undefined && taskStats !== undefined)
      writeTaskStats(command.taskStats, command.env, taskStats);
    process.stderr.write(`${formatSummary(summary, command.out)}\n`);
    if (abort.signal.aborted) return 130;
    return summary.done > 0 && summary.errors === summary.done ? 1 : 0;
  } finally {
    process.off("SIGINT", onSignal);
  }
};

/** Writes trajectories in episode order although episodes finish in any order. */
const orderedLines = (out: Writable) => {
  const waiting = new Map<number, Trajectory>();
  let next = 0;
  return {
    add(trajectory: Trajectory) {
      waiting.set(trajectory.episode, trajectory);
      for (let t = waiting.get(next); t; t = waiting.get(next)) {
        waiting.delete(next++);
        out.write(`${JSON.stringify(t)}\n`);
      }
    },
    /** Flushes what an abort left out of order, then closes a file. */
    end: () =>
      new Promise<void>((resolve, reject) => {
        for (const key of [...waiting.keys()].sort((a, b) => a - b))
          out.write(`${JSON.stringify(waiting.get(key))}\n`);
        if (out === process.stdout) return resolve();
        out.once("error", reject);
        out.end(() => resolve());
      })
  };
};

/** What "fetch failed" means to someone who has not started a server. */
const NO_SERVER = (url: string) =>
  `No Roost server answered at ${url}. Start one (npm start in the repository, or npm run dev in your own project), or point --url or ROOST_URL at yours.`;

/** The URL the command was pointed at, for the message above. */
const serverUrl = (): string => {
  try {
    const command = parseArgs(process.argv.slice(2), process.env);
    return "url" in command && command.url !== undefined
      ? command.url
      : "the server";
  } catch {
    return "the server";
  }
};

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message =
      error instanceof RoostClientError
        ? `${error.code}: ${error.message}${error.code === "network_error" ? `\n${NO_SERVER(serverUrl())}` : ""}`
        : error instanceof Error
          ? error.message
          : String(error);
    process.stderr.write(`roost-edge: ${message}\n`);
    process.exitCode = 1;
  }
);
