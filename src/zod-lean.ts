/**
 * @module zod for a bundled worker: wrangler's `[alias] zod = …` points
 * here (see "A smaller worker" in docs/09-deploy.md). Every named export is
 * zod's own; only the namespace object `z` (and the default export, the
 * same object) is not: it carries `ZodType` alone.
 *
 * `@hono/zod-openapi` imports `{ z }` from zod and hands it to
 * `extendZodWithOpenApi(z)`, which reads only `z.ZodType` (to add
 * `.openapi()` to its prototype). Were `z` zod's whole namespace, a
 * bundler would have to keep every export of it: every schema type,
 * format, codec and helper, whether the worker uses it or not (about
 * 10 KiB gzipped of Roost's worker, on top of the locales, `core` and the
 * schema compiler an earlier, fuller `z` here already left out). Code that
 * imports `* as z` and reads `z.string` or `z.object` keeps only what it
 * reads, through `export *`; the project's lint rule asks for that import.
 *
 * zod is imported here as `zod/v4`, the same modules: wrangler's alias
 * maps the exact specifier `zod`, so this file does not import itself.
 */

import { ZodType } from "zod/v4";

export * from "zod/v4";

/** What `@hono/zod-openapi` reads of `z`; import zod as a namespace for the rest. */
const z = { ZodType };

export { z, z as default };
