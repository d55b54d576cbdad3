/** @module `codeTool()`: a tool that runs the model's JavaScript in a fresh isolate per call. */

import * as z from "zod";
import { RoostError } from "../errors";
import { error, type Result, type Update } from "../store/result";
import { type Tool, tool } from "../tools/define-tool";
import {
  type IsolateRunOptions,
  MAX_ISOLATES_IN_FLIGHT,
  type ToolContext
} from "../tools/types";
import { type CodeCapabilities, grantCapabilities } from "./capabilities";
import { type CodeLimits, resolveCodeLimits } from "./limits";
import { type CodeAnswer, readReply } from "./reply";
import { sandboxModules } from "./sandbox-source";

export interface CodeToolConfig {
  /** Defaults to the key the tool is registered under. */
  name?: string;
  /** What the model reads; the default says what the code can reach. */
  description?: string;
  /** What the code may reach; nothing unless named (see CodeCapabilities). */
  capabilities?: CodeCapabilities;
  /** Each falls back to DEFAULT_CODE_LIMITS. */
  limits?: Partial<CodeLimits>;
}

const CodeInput = (limits: CodeLimits) =>
  z.object({
    code: z
      .string()
      .min(1)
      .max(limits.codeChars)
      .describe(
        "JavaScript, run as the body of an async function: use await, and return a value (or end with an expression) to answer it."
      )
  });

/** What the model reads about the tool when the environment gives no description. */
const describeTool = (grants: CodeCapabilities): string => {
  const can = [
    grants.store &&
      "`store` (await store.keys(), store.find(tool, name), store.recent(n)) reads the environment store",
    grants.results &&
      "`results.add({ name, objects, metadata })` adds a Result, kept only if the code succeeds",
    grants.state &&
      `\`state.get(key)\` reads state (${grants.state.join(", ")})`,
    grants.hidden && `\`hidden.get(key)\` reads ${grants.hidden.join(", ")}`,
    grants.network &&
      `\`fetch\` reaches ${grants.network.allow.join(", ")} over https`
  ].filter((line): line is string => typeof line === "string");
  return [
    "Runs JavaScript in a fresh sandbox and answers its return value as JSON with what it printed (console.log).",
    can.length > 0
      ? `Globals, all async: ${can.join("; ")}.`
      : "It has no access to anything outside itself.",
    "No network unless listed, no imports, no TypeScript."
  ].join(" ");
};

/** Random hex for the step counter's name: code cannot shadow what it cannot name. */
const randomName = (): string =>
  `__roost_tick_${[...crypto.getRandomValues(new Uint8Array(12))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")}`;

const NO_LOADER =
  'code tools need a Worker Loader binding, which this worker does not have. Add to wrangler.toml:\n[[worker_loaders]]\nbinding = "LOADER"\n(or name yours with createRoost({ loader })). Code never runs in the session\'s own isolate.';

/**
 * Runs, or gives up after `ms`: the run is told (`signal`) and abandoned,
 * never awaited. A run still queued behind the session's other runs says
 * so, since its code never started.
 */
const runWithin = <T>(
  start: (options: IsolateRunOptions) => Promise<T>,
  ms: number
): Promise<T> => {
  const stop = new AbortController();
  let started = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new RangeError(
            started
              ? `the code did not finish within ${ms} ms (waiting on a promise that never settles?)`
              : `the code did not start within ${ms} ms: this session already runs ${MAX_ISOLATES_IN_FLIGHT} code calls at once (the platform's limit for one session), and it waited for one to finish`
          )
        ),
      ms
    );
  });
  const work = start({
    signal: stop.signal,
    started: () => {
      started = true;
    }
  });
  return Promise.race([work, late]).finally(() => {
    if (timer !== undefined) clearTimeout(timer);
    stop.abort();
  });
};

/** The platform's words for an isolate ended past its memory limit, said for the model. */
const explain = (message: string): string =>
  /memory limit/i.test(message)
    ? `the code used more memory than a sandbox may (${message})`
    : message;

const failure = (ctx: ToolContext, message: string): Update =>
  error({
    feedback: `${message}\nNothing the code did was kept. Fix the code and call ${ctx.call.tool} again.`,
    message
  });

/**
 * A tool that runs the model's JavaScript in a new Dynamic Worker isolate
 * per call: no network, no bindings, only the capabilities granted. A
 * syntax error, a throw, a timeout or a limit is an error tool message
 * (a self-healing error, with the output written before it) and changes
 * nothing: Results it added are stored only after it succeeded.
 *
 * @example
 * const analyst = defineEnvironment({
 *   name: "analyst",
 *   tools: {
 *     run_js: codeTool({ capabilities: { store: true, results: true }, limits: { timeoutMs: 2000 } })
 *   },
 *   ...
 * });
 */
export const codeTool = (config: CodeToolConfig = {}): Tool => {
  const limits = resolveCodeLimits(config.limits);
  const grants = config.capabilities ?? {};
  return tool({
    ...(config.name === undefined ? {} : { name: config.name }),
    description: config.description ?? describeTool(grants),
    input: CodeInput(limits),
    // Past ours, so our timeout answers first, with what the code wrote.
    timeoutMs: limits.timeoutMs + 5_000,
    async *run(
      { code },
      ctx
    ): AsyncGenerator<Result | Update, CodeAnswer | undefined, void> {
      const isolates = ctx.isolates;
      // Never eval or new Function here: without a loader, code does not run.
      if (isolates === undefined) throw new RoostError("internal", NO_LOADER);
      const tick = randomName();
      // Loaded on the first call: the parser's tables are built then, not
      // at every cold start of a worker that merely has a code tool.
      const { prepareCode } = await import("./instrument");
      const prepared = prepareCode(code, tick);
      if (!prepared.ok) {
        yield failure(ctx, prepared.message);
        return undefined;
      }
      const granted = grantCapabilities(ctx, grants, limits.results);
      let reply: unknown;
      try {
        reply = await runWithin(
          (options) =>
            isolates.run(
              sandboxModules(prepared.body, tick),
              { limits },
              granted.capabilities,
              { ...options, cpuMs: limits.cpuMs }
            ),
          limits.timeoutMs
        );
      } catch (thrown) {
        // A timeout, or the platform ending the isolate (CPU or memory).
        const message =
          thrown instanceof Error ? thrown.message : String(thrown);
        yield failure(ctx, `The sandbox stopped: ${explain(message)}`);
        return undefined;
      } finally {
        granted.end();
      }
      const outcome = readReply(reply, limits);
      if (!outcome.ok) {
        yield failure(ctx, outcome.message);
        return undefined;
      }
      for (const staged of granted.staged) yield staged;
      return outcome.value;
    }
  }) as unknown as Tool;
};
