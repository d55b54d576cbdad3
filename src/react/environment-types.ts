/**
 * @module Types read from an environment's definition, structurally: an
 * app writes `useSession<typeof counter>(…)` with a type-only import, and
 * nothing of the core reaches its bundle.
 */

import type * as z from "zod";
import type { JsonObject, JsonValue } from "../json";

/** The part of `Environment` the hook reads: its state shape and its tools' inputs. */
interface Typed {
  state: { shape: Record<string, { type: z.ZodType }> };
}

type ShapeOf<E> = E extends Typed ? E["state"]["shape"] : never;

/**
 * The state values as the session sends them: keys without a value yet
 * are absent, so each is optional. Untyped without an environment.
 */
export type SessionState<E> = [E] extends [Typed]
  ? { [K in keyof ShapeOf<E>]?: z.output<ShapeOf<E>[K]["type"]> }
  : Record<string, JsonValue>;

/** Tool names and their argument objects, where the environment keeps them. */
type ToolsOf<E> = E extends { toolTypes?: infer T } ? NonNullable<T> : never;

export type ToolName<E> = [ToolsOf<E>] extends [never]
  ? string
  : keyof ToolsOf<E> & string;

/** What `call` takes for a tool: its zod input's input type (defaults may be left out). */
export type ToolArgs<E, T extends string> = [ToolsOf<E>] extends [never]
  ? JsonObject
  : T extends keyof ToolsOf<E>
    ? ToolsOf<E>[T] extends { input: infer I extends z.ZodType }
      ? z.input<I>
      : JsonObject
    : never;
