/** @module Zod issues as one line of text, for error messages a model or a person reads. */

import type * as z from "zod";

/** One clause per problem, each naming its field, so the caller can fix the input. */
export const describeIssues = (issues: readonly z.core.$ZodIssue[]): string =>
  issues
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
