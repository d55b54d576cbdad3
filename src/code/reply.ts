/** @module The sandbox's reply, checked and capped in the session, and the texts the model reads. */

import * as z from "zod";
import type { JsonValue } from "../json";
import { capText } from "../tools/content";
import type { CodeLimits } from "./limits";

/** What the main module answers (sandbox-source.ts); anything else is a broken sandbox. */
const ReplySchema = z.object({
  ok: z.boolean(),
  result: z.string().optional(),
  stdout: z.string(),
  stderr: z.string(),
  error: z
    .object({
      name: z.string(),
      message: z.string(),
      line: z.number().int().optional()
    })
    .optional()
});

/** What a run answered, as the tool returns it or reports it. */
export type RunOutcome =
  | { ok: true; value: CodeAnswer }
  | { ok: false; message: string };

/** A successful run's tool value: keys are left out when empty. */
export interface CodeAnswer {
  result?: JsonValue;
  stdout?: string;
  stderr?: string;
}

const output = (stdout: string, stderr: string, limits: CodeLimits) => ({
  ...(stdout === "" ? {} : { stdout: capText(stdout, limits.outputBytes) }),
  ...(stderr === "" ? {} : { stderr: capText(stderr, limits.outputBytes) })
});

/** The output a failed run wrote before it failed, for the model's error message. */
const written = (out: { stdout?: string; stderr?: string }): string =>
  [
    out.stdout === undefined ? "" : `\nstdout before the error:\n${out.stdout}`,
    out.stderr === undefined ? "" : `\nstderr before the error:\n${out.stderr}`
  ].join("");

/** Reads the isolate's reply: never trusted, so checked, capped and parsed here. */
export const readReply = (reply: unknown, limits: CodeLimits): RunOutcome => {
  const parsed = ReplySchema.safeParse(reply);
  if (!parsed.success) {
    return {
      ok: false,
      message:
        "The sandbox answered something that is not a reply: did the code replace a global the sandbox uses (JSON, TextEncoder, console)?"
    };
  }
  const r = parsed.data;
  const out = output(r.stdout, r.stderr, limits);
  if (!r.ok) {
    const e = r.error ?? { name: "Error", message: "the code failed" };
    const where = e.line === undefined ? "" : ` (line ${e.line})`;
    return {
      ok: false,
      message: `${e.name}: ${e.message}${where}${written(out)}`
    };
  }
  if (r.result === undefined) return { ok: true, value: out };
  if (new TextEncoder().encode(r.result).length > limits.resultBytes) {
    return {
      ok: false,
      message: `LimitError: the return value passed ${limits.resultBytes} bytes as JSON${written(out)}`
    };
  }
  try {
    return { ok: true, value: { result: JSON.parse(r.result), ...out } };
  } catch {
    return { ok: false, message: "The sandbox's return value is not JSON." };
  }
};
