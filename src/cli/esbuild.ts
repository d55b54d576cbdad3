/**
 * @module The esbuild a project already has, and its errors told to an
 * author. roost-edge ships no esbuild of its own: every project that
 * serves environments has wrangler, which bundles with esbuild, so the
 * command reads TypeScript and checks a worker with that one (the
 * bundler that will deploy the same files) instead of installing a second
 * copy, about 10 MB, into every project, Workers-only ones included.
 */

import { createRequire } from "node:module";
import type * as Esbuild from "esbuild";

export type EsbuildApi = typeof Esbuild;
export type BuildMessage = Esbuild.Message;

/**
 * esbuild as a module at each of `from` (file paths) would load it, its
 * own or its wrangler's; undefined when none of them has one.
 */
export const findEsbuild = (
  from: readonly string[]
): EsbuildApi | undefined => {
  for (const base of from) {
    const require = createRequire(base);
    const loaders = [
      () => require("esbuild"),
      () => createRequire(require.resolve("wrangler/package.json"))("esbuild")
    ];
    for (const load of loaders) {
      try {
        return load() as EsbuildApi;
      } catch {
        // Not there: the next place.
      }
    }
  }
  return undefined;
};

/** `left-pad` of `left-pad/sub`, `@scope/pkg` of `@scope/pkg/sub`; undefined for a path. */
const packageOf = (spec: string): string | undefined => {
  if (spec.startsWith(".") || spec.startsWith("/") || /^\w+:/.test(spec))
    return undefined;
  const parts = spec.split("/");
  return (spec.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join(
    "/"
  );
};

/**
 * esbuild's errors with what to do about each: its own hint to mark a
 * missing package external would only move the failure to run time, so an
 * unresolved package says how to install it instead.
 */
export const explainErrors = (
  messages: readonly BuildMessage[]
): BuildMessage[] =>
  messages.map((message) => {
    const notes = message.notes.filter((n) => !/as external/.test(n.text));
    const missing = /^Could not resolve "([^"]+)"/.exec(message.text)?.[1];
    const name = missing === undefined ? undefined : packageOf(missing);
    if (name !== undefined)
      notes.push({
        text: `Is ${name} installed? npm install ${name}`,
        location: null
      });
    else if (missing !== undefined)
      notes.push({
        text: "No such file: check the path, which is relative to the importing file.",
        location: null
      });
    return { ...message, notes };
  });

/** The errors as esbuild prints them (file:line:column, the line, a caret), with the hints above. */
export const formatErrors = (
  esbuild: EsbuildApi,
  messages: readonly BuildMessage[],
  color: boolean
): string =>
  esbuild
    .formatMessagesSync(explainErrors(messages), { kind: "error", color })
    .join("");

/** The messages of a failed build, or undefined for an error that is not one. */
export const buildErrors = (error: unknown): BuildMessage[] | undefined => {
  const errors = (error as { errors?: unknown } | null)?.errors;
  return Array.isArray(errors) && errors.length > 0
    ? (errors as BuildMessage[])
    : undefined;
};
