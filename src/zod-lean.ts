/**
 * @module zod for a bundled worker: wrangler's `[alias] zod = …` points
 * here (see "A smaller worker" in docs/09-deploy.md). Every named export is
 * zod's own; only the namespace object `z` (and the default export, the
 * same object) lacks `locales`, `core`, `compile` and `fromJSONSchema`.
 *
 * `@hono/zod-openapi` imports `{ z }` from zod and hands it to
 * `extendZodWithOpenApi(z)`, which reads only `z.ZodType`; but a bundler
 * must then keep every export of the object: zod's 63 locales, `core`
 * (which exports them again), the schema compiler and the JSON Schema
 * reader, which Roost never uses (its messages are English, which zod's
 * schemas register themselves). Code that imports `* as z` and reads
 * `z.string` or `z.object` keeps only what it reads, through `export *`.
 *
 * zod is imported here as `zod/v4`, the same modules: wrangler's alias
 * maps the exact specifier `zod`, so this file does not import itself.
 */

import * as z from "./zod-lean-z";

export * from "zod/v4";
export { z, z as default };
