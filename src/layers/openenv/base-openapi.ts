/**
 * @module The OpenAPI document of one OpenEnv base URL: the API's own
 * document cut down to the routes under that base, with paths relative to
 * it, as OpenEnv's FastAPI server documents itself at `<base>/openapi.json`
 * (OpenEnv's `openenv validate` reads `info.version` and looks for
 * `/reset`, `/step` and `/state` among the paths to tell the mode).
 */

/** OpenEnv's HTTP API version (its create_fastapi_app says 1.0.0); `openenv validate` reports `openenv-http/1.x` for it. */
export const OPENENV_API_VERSION = "1.0.0";

/** What this reads of the API's document (the library's OpenAPIObject fits it). */
interface Document {
  openapi: string;
  paths?: Record<string, object>;
  components?: unknown;
}

const withoutPathParameters = (item: object): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(item).map(([method, operation]) => {
      const op = operation as { parameters?: { in?: string }[] };
      if (!Array.isArray(op.parameters)) return [method, operation];
      // The base's own parameters ({name}, {credential}, {session}) are
      // part of the server URL here, not of the relative paths; the task
      // API's {env_name} is one of its own.
      const parameters = op.parameters.filter(
        (p) => p.in !== "path" || (p as { name?: string }).name === "env_name"
      );
      return [
        method,
        parameters.length === 0
          ? { ...op, parameters: undefined }
          : { ...op, parameters }
      ];
    })
  );

/** `prefix` in OpenAPI form, e.g. `/v1/environments/{name}/openenv/c/{credential}`. */
export const baseDocument = (
  full: Document,
  prefix: string,
  environment: { name: string; description: string }
): Record<string, unknown> => {
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(full.paths ?? {})) {
    if (!path.startsWith(`${prefix}/`)) continue;
    const rest = path.slice(prefix.length);
    // Deeper bases (…/openenv/c/{credential}/…) are documents of their own.
    if (rest.startsWith("/c/") || rest.startsWith("/s/")) continue;
    paths[rest] = withoutPathParameters(item);
  }
  return {
    openapi: full.openapi,
    info: {
      title: `${environment.name} (OpenEnv HTTP API, served by Roost)`,
      version: OPENENV_API_VERSION,
      description: environment.description
    },
    // Relative: resolved against this document's own URL, the base itself,
    // so a credential in the base URL is never written back.
    servers: [{ url: "." }],
    paths,
    components: full.components
  };
};
