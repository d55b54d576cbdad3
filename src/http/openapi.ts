/** @module The OpenAPI 3.1 document, generated once from the routes' zod schemas. */

import { BEARER_SCHEME, type RoostApp } from "./route-kit";

const INFO = {
  title: "Roost",
  version: "1",
  description:
    "An edge runtime for agent environments: one Durable Object per session, holding its environment store, hidden store, typed state and transcript. Errors are {error: {code, message, details?}}."
};

/** Registers the bearer scheme; call before the first document is built. */
export const registerSecurity = (app: RoostApp): void => {
  app.openAPIRegistry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    description:
      "A session token (v1.<kid>.<signature>, from POST /v1/sessions) or an API key from ROOST_API_KEYS."
  });
};

/** A getter that builds the document on first use and keeps it. */
export const openapiDocument = (app: RoostApp) => {
  let document: Record<string, unknown> | undefined;
  return (): Record<string, unknown> => {
    document ??= app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: INFO
    }) as unknown as Record<string, unknown>;
    return document;
  };
};
