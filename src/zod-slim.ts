/**
 * @module zod for a worker whose code imports zod only as a namespace
 * (`import * as z from "zod"`), as Roost's own does (its lint rule asks for
 * that import): wrangler.toml's `[alias] zod = …` points here. Every named
 * export is zod's own; only the object `z` (and the default export, the
 * same object) is not: it carries `ZodType` alone.
 *
 * `@hono/zod-openapi` imports `{ z }` from zod and hands it to
 * `extendZodWithOpenApi(z)`, which reads only `z.ZodType` (to add
 * `.openapi()` to its prototype). Handed `./zod-lean`'s `z`, which names
 * every export of zod but four, a bundler has to keep every schema type,
 * format, codec and helper zod has: 9.5 KiB gzipped of Roost's worker
 * that nothing in it reads. A namespace import keeps only what it reads,
 * through `export *`.
 *
 * A worker that imports `{ z }` itself needs `./zod-lean` instead (the one
 * the package exports): its `z` has the whole API. See "A smaller worker"
 * in docs/09-deploy.md.
 *
 * zod is imported here as `zod/v4`, the same modules: wrangler's alias
 * maps the exact specifier `zod`, so this file does not import itself.
 */

import { ZodType } from "zod/v4";

export * from "zod/v4";

/** What `@hono/zod-openapi` reads of `z`; the rest is read through a namespace import. */
const z = { ZodType };

export { z, z as default };
