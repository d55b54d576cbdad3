/**
 * @module What an environment offers MCP clients besides its tools:
 * prompts, resources and resource templates (`defineEnvironment({ mcp })`).
 * Types only: the MCP layer serves them, and a worker without it pays
 * nothing for them. They belong to the environment, the same for every
 * session; a session's own data is its store (`roost://environment/…`).
 */

import type * as z from "zod";
import type { JsonObject } from "../json";
import type { Content } from "../messages/schema";
import type { CallerClient } from "../tools/ask";

/** What a prompt or resource is handed: the client, when it can be asked. */
export interface OfferContext {
  /** Present for a client that answers input-required results (2026-07-28). */
  client?: CallerClient;
}

/** Offers completions for one argument: values starting with what the user typed. */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> }
) => readonly string[] | Promise<readonly string[]>;

/** A prompt's message, in Roost's (OpenAI's) format; MCP gets one message per part. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: Content;
}

export interface PromptDefinition {
  title?: string;
  description?: string;
  /** Its arguments: an object of strings (MCP passes arguments as strings). */
  arguments?: z.ZodObject;
  /** Completions per argument, for completion/complete. */
  complete?: Record<string, Completer>;
  messages(
    args: JsonObject,
    ctx: OfferContext
  ): readonly PromptMessage[] | Promise<readonly PromptMessage[]>;
}

/** A resource's body: text, or base64 `blob`; `mimeType` overrides the declared one. */
export type ResourceBody = ({ text: string } | { blob: string }) & {
  mimeType?: string;
};

export interface ResourceDefinition {
  /** Its name in lists; the URI when omitted. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  read(ctx: OfferContext): ResourceBody | Promise<ResourceBody>;
}

/** Resources whose URIs fill a template (RFC 6570 level 1: `{name}` segments). */
export interface ResourceTemplateDefinition {
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Completions per variable, for completion/complete. */
  complete?: Record<string, Completer>;
  read(
    variables: Record<string, string>,
    ctx: OfferContext
  ): ResourceBody | Promise<ResourceBody>;
}

export interface McpOffer {
  /** Prompts by name; `instructions` and `task` are offered unless you name your own so. */
  prompts?: Record<string, PromptDefinition>;
  /** Resources by URI. */
  resources?: Record<string, ResourceDefinition>;
  /** Resource templates by URI template, e.g. `notes://{id}`. */
  resourceTemplates?: Record<string, ResourceTemplateDefinition>;
}
