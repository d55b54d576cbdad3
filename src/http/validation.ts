/** @module The validation hook of every route: a failed schema throws our error instead of Hono's 400 shape. */

import type * as z from "zod";
import { fromErrorBody } from "../errors";
import { issuesToErrorBody } from "../protocol";

const WHAT: Record<string, string> = {
  json: "request",
  param: "path",
  query: "query",
  header: "headers"
};

/**
 * Passed as OpenAPIHono's `defaultHook`. Returning nothing lets valid input
 * through; throwing hands the error to `onError`, so every validation
 * failure has the one error body, naming the fields.
 */
export const throwOnInvalid = (result: {
  success: boolean;
  error?: z.ZodError;
  target: string;
}): void => {
  if (result.success || result.error === undefined) return;
  throw fromErrorBody(
    issuesToErrorBody(result.error, WHAT[result.target] ?? result.target)
  );
};
