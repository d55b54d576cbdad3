/** @module A route as one value: its OpenAPI definition and its handler, from which registration, the route table and the document all derive. */

// Types only: the core registers its routes on a plain Hono app, and only
// the OpenAPI layer (layers/openapi) loads the library that documents them.
import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler, Next } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { validator } from "hono/validator";
import * as z from "zod";
import { lazy } from "../lazy";
import { jsonBody, readJsonBody } from "./body";
import type { AppEnv } from "./env";
import type { RoostApp } from "./route-kit";
import { throwOnInvalid } from "./validation";

type Request = RouteConfig["request"];
type Responses = RouteConfig["responses"];

/**
 * A route's OpenAPI definition (what `createRoute` takes) with its request
 * and response schemas built on first read: registering the route needs
 * only its method, path and middleware, its first request builds what
 * validates the request, and only the OpenAPI document reads the
 * responses. A cold isolate serves its first request without building
 * every route's schemas.
 */
export const route = <
  P extends string,
  H extends Omit<RouteConfig, "request" | "responses" | "path"> & {
    path: P;
  },
  S extends Responses,
  R extends Request = undefined
>(
  head: H,
  schemas: { request?: () => R; responses: () => S }
): H & { request: R; responses: S } => {
  const request = lazy(() => schemas.request?.());
  const responses = lazy(schemas.responses);
  const { middleware, ...documented } = head;
  // The OpenAPI registry keeps this object as it is and documents its
  // enumerable fields: middleware is not one of them.
  return Object.defineProperties(documented, {
    middleware: { value: middleware },
    request: { enumerable: true, get: request },
    responses: { enumerable: true, get: responses }
  }) as unknown as H & { request: R; responses: S };
};

export interface RouteEntry {
  readonly route: RouteConfig;
  /** Typed against `route` where it was defined (see `defineRoute`). */
  readonly handler: RouteHandler<RouteConfig, AppEnv>;
  /** Whether it reads a JSON body (for the route table's 415 and body tests). */
  readonly readsBody: boolean;
}

/**
 * Pairs a route with its handler, type-checked against each other here,
 * once. `readsBody` defaults to whether the route documents a body; MCP's
 * routes read JSON-RPC bodies they do not document as schemas.
 */
export const defineRoute = <R extends RouteConfig>(
  route: R,
  handler: RouteHandler<R, AppEnv>,
  options: { readsBody?: boolean } = {}
): RouteEntry => ({
  route,
  handler: handler as unknown as RouteHandler<RouteConfig, AppEnv>,
  get readsBody() {
    return (
      options.readsBody ??
      (route.request !== undefined && "body" in route.request)
    );
  }
});

/**
 * Pairs a route with a handler that answers plain Responses: MCP's
 * JSON-RPC, sockets and streams, whose answers no response schema types
 * (the document still describes them). The request is validated all the
 * same, so `c.req.valid` is typed as for `defineRoute`.
 */
export const defineRawRoute = <R extends RouteConfig>(
  route: R,
  handler: (
    c: Parameters<RouteHandler<R, AppEnv>>[0]
  ) => Response | Promise<Response>,
  options: { readsBody?: boolean } = {}
): RouteEntry =>
  defineRoute(route, handler as unknown as RouteHandler<R, AppEnv>, options);

const JSON_CONTENT = "application/json";

/** The Content-Type @hono/zod-openapi admits for a JSON body (its media-type gate). */
const JSON_REQUEST =
  /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/** A schema check as the validators make it: failures go to `throwOnInvalid`. */
const check = (schema: z.ZodType, value: unknown, target: string): unknown => {
  const result = schema.safeParse(value);
  if (!result.success) throwOnInvalid({ ...result, target });
  return result.data;
};

/**
 * The validators @hono/zod-openapi would add after `jsonBody` — path
 * parameters, its media-type gate, the JSON body — fused with `jsonBody`
 * into one synchronous middleware that parses the body once. Undefined for
 * a route of another shape, which keeps the library's validators.
 */
const fusedJsonBody = (route: RouteConfig) => {
  const { params, query, headers, cookies, body } = route.request ?? {};
  const content = body?.content ?? {};
  const media = content[JSON_CONTENT];
  const schema =
    media !== undefined && "schema" in media ? media.schema : undefined;
  if (
    query !== undefined ||
    headers !== undefined ||
    cookies !== undefined ||
    body?.required !== true ||
    Object.keys(content).length !== 1 ||
    !(schema instanceof z.ZodType) ||
    (params !== undefined && !(params instanceof z.ZodType))
  ) {
    return undefined;
  }
  return createMiddleware<AppEnv>(async (c, next) => {
    const parsed = await readJsonBody(c);
    if (params !== undefined) {
      c.req.addValidatedData(
        "param",
        check(params, c.req.param(), "param") as object
      );
    }
    // jsonBody admitted the media type; the gate is stricter about
    // parameters (and answers with its own message).
    const contentType = c.req.header("Content-Type");
    if (contentType && !JSON_REQUEST.test(contentType)) {
      throw new HTTPException(415, { message: "Unsupported Media Type" });
    }
    c.req.addValidatedData("json", check(schema, parsed, "json") as object);
    await next();
  });
};

/**
 * Hono's own validator for one part of the request (it reads the query,
 * the path parameters or the JSON body as @hono/zod-openapi's validators
 * do, since those are built on it), checked with the route's schema.
 */
const validate = (
  target: "query" | "param" | "json",
  schema: z.ZodType
): MiddlewareHandler<AppEnv> =>
  validator(target, (value) => check(schema, value, target) as object);

/** Whether the request has a body, read from Hono's cache when a middleware read it already. */
const hasBody = async (c: Context<AppEnv>): Promise<boolean> => {
  const raw = c.req.raw;
  if (raw.body === null) return false;
  const bytes = raw.bodyUsed
    ? await c.req.arrayBuffer()
    : await raw.clone().arrayBuffer();
  return bytes.byteLength > 0;
};

/** A JSON body's media-type gate, as the OpenAPI library sets it: another type, or a body without one, is a 415. */
const jsonGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const contentType = c.req.header("Content-Type");
  if (contentType ? !JSON_REQUEST.test(contentType) : await hasBody(c))
    throw new HTTPException(415, { message: "Unsupported Media Type" });
  await next();
};

/**
 * The validators @hono/zod-openapi would put between a route's middleware
 * and its handler, in its order (query, path parameters, the media-type
 * gate, the JSON body), on Hono's validator, so the core does not load
 * the library: the routes declare no header, cookie or form inputs.
 */
const requestValidators = (route: RouteConfig): MiddlewareHandler<AppEnv>[] => {
  const { params, query, headers, cookies, body } = route.request ?? {};
  if (headers !== undefined || cookies !== undefined)
    throw new TypeError(
      `${route.method} ${route.path}: header and cookie inputs are not validated; read them in the handler.`
    );
  const list: MiddlewareHandler<AppEnv>[] = [];
  if (query instanceof z.ZodType) list.push(validate("query", query));
  if (params instanceof z.ZodType) list.push(validate("param", params));
  const content = body?.content ?? {};
  const media = content[JSON_CONTENT];
  const schema =
    media !== undefined && "schema" in media ? media.schema : undefined;
  if (Object.keys(content).some((type) => type !== JSON_CONTENT))
    throw new TypeError(
      `${route.method} ${route.path}: a body other than JSON is not validated.`
    );
  if (schema instanceof z.ZodType)
    list.push(jsonGate, validate("json", schema));
  return list;
};

/** Runs `handlers` as one middleware, each one's `next` the one after it. */
const inSequence =
  (handlers: readonly MiddlewareHandler<AppEnv>[]): MiddlewareHandler<AppEnv> =>
  (c, next) => {
    const at = (i: number): ReturnType<MiddlewareHandler<AppEnv>> =>
      i === handlers.length
        ? next()
        : handlers[i]!(c, (() => at(i + 1)) as Next);
    return at(0);
  };

/**
 * Registers a route as @hono/zod-openapi's `app.openapi` would (without
 * documenting it: the OpenAPI layer does that), except that its request
 * validation is built on the route's first request (the schemas with it),
 * and that a route whose last middleware is `jsonBody` reads and validates
 * its request in one step when it can (the same checks in the same order,
 * one JSON parse, no async validators): the JSON routes are the ones
 * every step takes.
 */
export const registerRoute = (app: RoostApp, entry: RouteEntry): void => {
  const { route } = entry;
  const { middleware } = route;
  const listed: MiddlewareHandler[] =
    middleware === undefined
      ? []
      : Array.isArray(middleware)
        ? middleware
        : [middleware as MiddlewareHandler];
  const readsJson = listed.at(-1) === jsonBody;
  const validation = lazy(
    (): MiddlewareHandler<AppEnv> =>
      (readsJson ? fusedJsonBody(route) : undefined) ??
      inSequence([
        ...(readsJson ? [jsonBody] : []),
        ...requestValidators(route)
      ])
  );
  app.on(
    [route.method],
    [route.path.replaceAll(/\/{(.+?)}/g, "/:$1")],
    ...(readsJson ? listed.slice(0, -1) : listed),
    (c, next) => validation()(c, next),
    entry.handler
  );
};
