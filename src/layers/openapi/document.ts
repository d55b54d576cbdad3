/**
 * @module The OpenAPI 3.1 document of a worker's routes (the core's and its
 * layers'), generated from their zod schemas on first use and kept per
 * route table: the one place that loads the library that writes it.
 */

import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../http/env";
import { BEARER_SCHEME } from "../../http/route-kit";
import type { RouteTable } from "../../http/route-table";

const INFO = {
  title: "Roost",
  version: "1",
  description:
    "An edge runtime for agent environments: one Durable Object per session, holding its environment store, hidden store, typed state and transcript. Errors are {error: {code, message, details?}}, but under a session's model gateway (…/model/v1), which answers OpenAI's {error: {message, type, code, param}}."
};

/** The document as the library writes it. */
export type ApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

const documents = new WeakMap<RouteTable, ApiDocument>();

const build = (table: RouteTable): ApiDocument => {
  // A scratch app only for its registry: nothing is served from it.
  const scratch = new OpenAPIHono();
  scratch.openAPIRegistry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    description:
      "A session token (v1.<kid>.<signature>, from POST /v1/sessions) or an API key from ROOST_API_KEYS."
  });
  for (const { route } of table.entries)
    if (!route.hide) scratch.openAPIRegistry.registerPath(route);
  return scratch.getOpenAPI31Document({ openapi: "3.1.0", info: INFO });
};

/** The document of the request's worker, built on first use. */
export const apiDocument = (c: Context<AppEnv>): ApiDocument => {
  const table = c.get("routes");
  let document = documents.get(table);
  if (document === undefined) {
    document = build(table);
    documents.set(table, document);
  }
  return document;
};
