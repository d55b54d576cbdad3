/** @module The CLI's command line: parsed and checked without touching Node, so it is testable anywhere. */

import type { SamplerKind } from "../client/task-sampler";
import { NAME_RE } from "../names";
import {
  AUTHOR_COMMANDS,
  DEV_OPTIONS,
  type DevCommand,
  type InitCommand,
  parseAuthorArgs
} from "./author-args";
import { optionalInt } from "./int-flag";
import { branchesOf, judgeOf } from "./rollout-modes";
import { SAMPLING_OPTIONS, samplingOf } from "./sampling-args";
import { UsageError } from "./usage-error";
import {
  parseValidateArgs,
  VALIDATE_COMMAND,
  VALIDATE_OPTIONS,
  type ValidateCommand
} from "./validate-args";

export interface RolloutCommand {
  command: "rollout";
  url: string;
  env: string;
  episodes: number;
  concurrency: number;
  /** Episodes per group, reset once and forked (1: no groups). */
  groupSize?: number;
  /** `random`, `openai`, or a path to a module exporting a policy. */
  policy: string;
  /** `--agent-policies x=…,o=…`: a multi-agent environment's policies by agent, each as `policy` is given. */
  agentPolicies?: Record<string, string>;
  seed?: number;
  /** `--policy openai`: the model, its endpoint, key and sampling. */
  model?: {
    model: string;
    baseUrl: string;
    apiKey?: string;
    temperature?: number;
    maxTokens?: number;
  };
  maxSteps?: number;
  taskIndex?: number;
  /** The named split episodes pick their tasks from (a generated one: episode i is seed i). */
  split?: string;
  /** How each episode or group picks its dataset index (default sequential). */
  sampler?: SamplerKind;
  /** Sample from indexes (or generated seeds) 0 … taskCount − 1. */
  taskCount?: number;
  /** The curriculum's statistics file: read if it exists, written when the run ends. */
  taskStats?: string;
  /** A return at or above this is a success in the statistics (default 1). */
  successThreshold?: number;
  /** A file path, or "-" for stdout. */
  out: string;
  apiKey?: string;
  /** `--branches M [--branch-every k]`: a tree rollout, M continuations after every k-th step. */
  branches?: { continuations: number; every: number };
  /** `--model-gateway`: the policy's model calls through each session's gateway, recorded with their tokens. */
  modelGateway?: true;
  /** `--group-judge`: the chat model that scores each group's trajectories against each other. */
  judge?: {
    model: string;
    baseUrl: string;
    /** From $ROOST_JUDGE_API_KEY only: never a flag, so never in a shell history or a process list. */
    apiKey?: string;
    rubric?: string;
  };
}

export interface RescoreCommand {
  command: "rescore";
  /** The module exporting `rubric` and/or `episodeRubric`. */
  rubric: string;
  in: string;
  /** A file path, or "-" for stdout. */
  out: string;
}

export type Command =
  | RolloutCommand
  | RescoreCommand
  | ValidateCommand
  | { command: "environments"; url: string }
  | { command: "check"; files: string[] }
  | DevCommand
  | InitCommand
  | { command: "help" };

export { UsageError };

export const USAGE = `Usage:
${AUTHOR_COMMANDS}
  roost-edge rollout --env <name> [options]   run episodes, write trajectories as JSONL
  roost-edge rescore --rubric <module> --in <file> [--out <file>]
                                              re-score a trajectories file, running nothing
  roost-edge environments [--url <url>]       list the server's environments
${VALIDATE_COMMAND}

${DEV_OPTIONS}

Options of rollout:
  --url <url>           server (default $ROOST_URL or http://127.0.0.1:8787)
  --env <name>          environment to run (required)
  --episodes <n>        episodes to run (default 10)
  --concurrency <n>     episodes in flight at once (default 4)
  --group-size <g>      run episodes in groups of g from one identical start:
                        each group resets one session and forks it g-1 times;
                        trajectories carry group_id and group_index (GRPO)
  --policy <policy>     random (the default); openai, a model behind any
                        OpenAI-compatible chat-completions endpoint; or the
                        path of an ES module exporting a policy as "policy"
                        or default
  --agent-policies <agent=policy,…>
                        a multi-agent environment's policy per agent, each
                        as --policy takes it; the others get --policy
                        (all of them: self-play)
  --seed <n>            seed of the random policy and of --sampler's draws
  --model <name>        openai: the model (default $OPENAI_MODEL)
  --base-url <url>      openai: the endpoint's base, e.g. http://127.0.0.1:8000/v1
                        (default $OPENAI_BASE_URL or https://api.openai.com/v1);
                        the key comes from $OPENAI_API_KEY
  --temperature <t>     openai: sampling temperature
  --max-tokens <n>      openai: most tokens per reply
  --branches <m>        tree rollout (a branchable environment): after each
                        episode, fork it after every k-th step and play m
                        continuations from each; lines gain branches (their
                        returns and mean, the state's value) and
                        step_advantages
  --branch-every <k>    with --branches: the steps to branch after (default 1)
  --model-gateway       openai: call the model through each session's model
                        gateway (the server's upstream, not --base-url), so
                        the session records the calls with their token ids
                        and each line carries token_sequences
  --max-steps <n>       truncate episodes after n steps (default: the environment's)
  --task-index <n>      dataset index for every episode (default: episode i
                        uses i; with groups, group g uses g)
  --split <name>        take tasks from this split of the environment's
                        dataset (train, eval, …); in a generated split the
                        index is the seed, so episode i plays seed i
${SAMPLING_OPTIONS}
  --out <file>          where to write trajectories (default "-", stdout)
  --api-key <key>       API key for creating sessions (default $ROOST_API_KEY)

With --group-size, each trajectory gets its GRPO advantage in its group,
(return - mean) / (std + 1e-6) with the population std, and the summary
counts the groups with no spread (all advantages 0).
  --group-judge         also ask a chat model to score each group's
                        trajectories against each other, one call per group:
                        group_score (0-1) and rank (1 = best) in each line;
                        a failure is recorded as group_judge_error
  --judge-model <name>  the judge model (default $ROOST_JUDGE_MODEL)
  --judge-base-url <url>  its OpenAI-compatible endpoint (default
                        $ROOST_JUDGE_BASE_URL or https://api.openai.com/v1);
                        the key comes from $ROOST_JUDGE_API_KEY, never a flag,
                        and is never written out
  --judge-rubric <text> what makes a trajectory better (default: reaching the
                        goal first, then doing it cleanly)

Options of rescore:
  --rubric <module>     an ES module exporting a step rubric (defineRubric) as
                        "rubric" and/or an episode rubric (defineEpisodeRubric)
                        as "episodeRubric"; what it exports replaces the
                        environment's rubric of that kind, the rest is kept.
                        Its functions see each step's observations, action and
                        number, and ctx.task; the session's state and stores
                        are not in the file, and reading them is a component
                        error
  --in <file>           the trajectories file (JSONL) to re-score (required)
  --out <file>          where to write the re-scored lines (default "-",
                        stdout); old rewards, return and components are kept
                        under "previous", advantages recomputed for groups

${VALIDATE_OPTIONS}

A module (validate's, --policy's, --rubric's) may be JavaScript or
TypeScript (.ts, .mts, .tsx): TypeScript is compiled with the esbuild the
project has (its wrangler brings one) and imported with its own imports,
packages included, resolved as the file's would be.

Progress goes to stderr. Exit code 0 when the run finished, 1 when every
episode failed or the server could not be used, 2 for a bad command line.`;

const FLAGS = new Set([
  "url",
  "env",
  "episodes",
  "concurrency",
  "group-size",
  "policy",
  "agent-policies",
  "seed",
  "model",
  "base-url",
  "temperature",
  "max-tokens",
  "max-steps",
  "task-index",
  "split",
  "sampler",
  "task-count",
  "task-stats",
  "success-threshold",
  "out",
  "api-key",
  "group-judge",
  "model-gateway",
  "branches",
  "branch-every",
  "judge-model",
  "judge-base-url",
  "judge-rubric"
]);

const RESCORE_FLAGS = new Set(["rubric", "in", "out"]);

/** Flags that take no value: present means on. */
const SWITCHES = new Set(["group-judge", "model-gateway"]);

/**
 * Reads `argv` (without node and the script) and the environment variables
 * it falls back to. Throws `UsageError` with a message for the user.
 *
 * @example
 * parseArgs(["rollout", "--env", "counter", "--episodes=5"], {});
 */
export const parseArgs = (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>
): Command => {
  const [command, ...rest] = argv;
  // Asking for help anywhere (`rollout --help`) is asking for help.
  if (
    command === undefined ||
    command === "help" ||
    argv.includes("--help") ||
    argv.includes("-h")
  )
    return { command: "help" };
  if (command === "check") {
    const option = rest.find((arg) => arg.startsWith("-"));
    if (option !== undefined)
      throw new UsageError(`Unknown option ${option} of check.`);
    return { command: "check", files: rest };
  }
  if (command === "init" || command === "dev")
    return parseAuthorArgs(command, rest, env);
  if (command === "rescore") return rescoreOf(readFlags(rest, RESCORE_FLAGS));
  if (command === "validate") return parseValidateArgs(rest, env);
  const flags = readFlags(rest, FLAGS);
  const url = flags.get("url") ?? env.ROOST_URL ?? "http://127.0.0.1:8787";
  if (command === "environments") return { command: "environments", url };
  if (command !== "rollout")
    throw new UsageError(`Unknown command "${command}".`);
  const name = flags.get("env");
  if (!name) throw new UsageError("--env <name> is required.");
  const policy = flags.get("policy") ?? "random";
  const model = policy === "openai" ? modelOf(flags, env) : undefined;
  const apiKey = flags.get("api-key") ?? env.ROOST_API_KEY;
  const seed = optionalInt(flags, "seed", 0);
  const maxSteps = optionalInt(flags, "max-steps", 1);
  const taskIndex = optionalInt(flags, "task-index", 0);
  const split = flags.get("split");
  if (split !== undefined && !NAME_RE.test(split))
    throw new UsageError(`--split "${split}" is not a split name.`);
  const groupSize = optionalInt(flags, "group-size", 1);
  if (groupSize !== undefined && groupSize > 65)
    throw new UsageError(
      "--group-size must be at most 65 (one session and 64 copies)."
    );
  return {
    ...samplingOf(flags, taskIndex, optionalInt(flags, "task-count", 1)),
    command: "rollout",
    url,
    env: name,
    episodes: optionalInt(flags, "episodes", 1) ?? 10,
    concurrency: optionalInt(flags, "concurrency", 1) ?? 4,
    policy,
    ...agentPoliciesOf(flags.get("agent-policies")),
    out: flags.get("out") ?? "-",
    ...(seed === undefined ? {} : { seed }),
    ...(model === undefined ? {} : { model }),
    ...(maxSteps === undefined ? {} : { maxSteps }),
    ...(taskIndex === undefined ? {} : { taskIndex }),
    ...(split === undefined ? {} : { split }),
    ...(groupSize === undefined ? {} : { groupSize }),
    ...(apiKey ? { apiKey } : {}),
    ...(flags.has("model-gateway") ? { modelGateway: true as const } : {}),
    ...branchesOf(flags),
    ...judgeOf(flags, env, groupSize)
  };
};

const agentPoliciesOf = (
  spec: string | undefined
): { agentPolicies?: Record<string, string> } => {
  if (spec === undefined) return {};
  const agentPolicies: Record<string, string> = {};
  for (const pair of spec.split(",")) {
    const at = pair.indexOf("=");
    const agent = pair.slice(0, at);
    if (at < 1 || !NAME_RE.test(agent) || at === pair.length - 1)
      throw new UsageError(
        `--agent-policies takes agent=policy pairs separated by commas; "${pair}" is not one.`
      );
    agentPolicies[agent] = pair.slice(at + 1);
  }
  return { agentPolicies };
};

const rescoreOf = (flags: Map<string, string>): RescoreCommand => {
  const rubric = flags.get("rubric");
  if (!rubric) throw new UsageError("rescore needs --rubric <module>.");
  const input = flags.get("in");
  if (!input) throw new UsageError("rescore needs --in <trajectories file>.");
  return {
    command: "rescore",
    rubric,
    in: input,
    out: flags.get("out") ?? "-"
  };
};

const readFlags = (
  args: readonly string[],
  known: ReadonlySet<string>
): Map<string, string> => {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--"))
      throw new UsageError(`Unexpected argument "${arg}".`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!known.has(name)) throw new UsageError(`Unknown option --${name}.`);
    if (SWITCHES.has(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value.`);
      flags.set(name, "");
      continue;
    }
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq === -1 && value.startsWith("--")))
      throw new UsageError(`--${name} needs a value.`);
    flags.set(name, value);
  }
  return flags;
};

const modelOf = (
  flags: Map<string, string>,
  env: Readonly<Record<string, string | undefined>>
): NonNullable<RolloutCommand["model"]> => {
  const model = flags.get("model") ?? env.OPENAI_MODEL;
  if (!model)
    throw new UsageError(
      "--policy openai needs --model <name> (or $OPENAI_MODEL)."
    );
  const temperature = flags.get("temperature");
  if (
    temperature !== undefined &&
    !(Number.isFinite(Number(temperature)) && Number(temperature) >= 0)
  )
    throw new UsageError(
      `--temperature must be a number ≥ 0, not "${temperature}".`
    );
  const maxTokens = optionalInt(flags, "max-tokens", 1);
  const apiKey = env.OPENAI_API_KEY;
  return {
    model,
    baseUrl:
      flags.get("base-url") ??
      env.OPENAI_BASE_URL ??
      "https://api.openai.com/v1",
    ...(apiKey ? { apiKey } : {}),
    ...(temperature === undefined ? {} : { temperature: Number(temperature) }),
    ...(maxTokens === undefined ? {} : { maxTokens })
  };
};
