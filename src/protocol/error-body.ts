/** @module The wire shape of errors, and how zod issues become one. */

import * as z from "zod";
import type { ErrorBody, ErrorCode } from "../errors";
import { ERROR_STATUS } from "../errors";
import { lazy } from "../lazy";
import { NAME_RE } from "../names";

// Object.keys loses the key type; the table in errors.ts is the only source.
const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export const ErrorCodeSchema = lazy(() =>
  z
    .enum(ERROR_CODES)
    .meta({ id: "ErrorCode", description: "Decides the HTTP status." })
);

export const ErrorBodySchema = lazy(() =>
  z
    .object({
      code: ErrorCodeSchema(),
      message: z.string(),
      details: z.unknown().optional()
    })
    .meta({ id: "ErrorBody", description: "What went wrong and what to do." })
);

export const ErrorResponseSchema = lazy(() =>
  z
    .object({ error: ErrorBodySchema() })
    .meta({ id: "ErrorResponse", description: "Every error response." })
);
export type ErrorResponse = z.infer<ReturnType<typeof ErrorResponseSchema>>;

/** One zod issue, flattened: `path` is dotted (`action.tool_calls.0.id`), empty for the root. */
export interface IssueDetail {
  path: string;
  code: string;
  message: string;
}

const MESSAGE_ISSUES = 3;

/**
 * Turns a failed parse into an ErrorBody whose message names the fields.
 * Issues that are all about the name rule become `invalid_name`, the code
 * for a bad tool or result name; anything else is `invalid_request`.
 *
 * @example
 * const parsed = StepRequestSchema.safeParse(body);
 * if (!parsed.success) throw fromErrorBody(issuesToErrorBody(parsed.error));
 */
export const issuesToErrorBody = (
  error: z.ZodError,
  what = "request"
): ErrorBody => {
  const issues: IssueDetail[] = error.issues.map((top) => {
    const { path, issue } = deepest(top);
    return {
      path: path.map(String).join("."),
      code: issue.code,
      message: issue.message
    };
  });
  const shown = issues
    .slice(0, MESSAGE_ISSUES)
    .map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`));
  const more =
    issues.length > MESSAGE_ISSUES
      ? ` (and ${issues.length - MESSAGE_ISSUES} more)`
      : "";
  return {
    code:
      error.issues.length > 0 && error.issues.every(isNameIssue)
        ? "invalid_name"
        : "invalid_request",
    message: `Invalid ${what}: ${shown.join("; ")}${more}`,
    details: { issues }
  };
};

const isNameIssue = (issue: z.core.$ZodIssue): boolean =>
  issue.code === "invalid_format" &&
  issue.format === "regex" &&
  issue.pattern === NAME_RE.toString();

/**
 * A failed union reports every branch at the union's own path, so a NaN
 * deep inside a JSON value would read as "task: not JSON". The branch that
 * got furthest is the one the sender meant; report its innermost issue.
 */
const deepest = (
  issue: z.core.$ZodIssue
): { path: PropertyKey[]; issue: z.core.$ZodIssue } => {
  let best = { path: issue.path, issue };
  if (issue.code !== "invalid_union") return best;
  for (const branch of issue.errors) {
    for (const inner of branch) {
      const found = deepest(inner);
      const path = [...issue.path, ...found.path];
      if (found.path.length > 0 && path.length > best.path.length) {
        best = { path, issue: found.issue };
      }
    }
  }
  return best;
};
