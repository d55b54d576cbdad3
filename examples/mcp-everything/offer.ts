/** @module mcp-everything's prompts, resources and resource template. */

import type { McpOffer } from "roost-edge/core";
import * as z from "zod";
import { PNG } from "./content-tools";

export const offer: McpOffer = {
  prompts: {
    test_simple_prompt: {
      title: "Simple Test Prompt",
      description: "A simple prompt without arguments",
      messages: () => [
        { role: "user", content: "This is a simple prompt for testing." }
      ]
    },
    test_prompt_with_arguments: {
      title: "Prompt With Arguments",
      description: "A prompt with required arguments",
      arguments: z.object({
        arg1: z.string().describe("First test argument"),
        arg2: z.string().describe("Second test argument")
      }),
      complete: {
        arg1: (value) =>
          ["alpha", "beta", "gamma"].filter((v) => v.startsWith(value))
      },
      messages: ({ arg1, arg2 }) => [
        {
          role: "user",
          content: `Prompt with arguments: arg1='${String(arg1)}', arg2='${String(arg2)}'`
        }
      ]
    },
    test_prompt_with_embedded_resource: {
      title: "Prompt With Embedded Resource",
      description: "A prompt that includes an embedded resource",
      arguments: z.object({
        resourceUri: z.string().describe("URI of the resource to embed")
      }),
      messages: ({ resourceUri }) => [
        {
          role: "user",
          content: [
            {
              type: "resource",
              resource: {
                uri: String(resourceUri),
                mimeType: "text/plain",
                text: "Embedded resource content for testing."
              }
            }
          ]
        },
        { role: "user", content: "Please process the embedded resource above." }
      ]
    },
    test_prompt_with_image: {
      title: "Prompt With Image",
      description: "A prompt that includes image content",
      messages: () => [
        {
          role: "user",
          content: [
            {
              type: "image_url",
              image_url: { url: `data:image/png;base64,${PNG}` }
            }
          ]
        },
        { role: "user", content: "Please analyze the image above." }
      ]
    },
    // A prompt may ask a stateless client too (input-required results).
    test_input_required_result_prompt: {
      description: "A prompt that asks the user for context first",
      messages: async (_args, ctx) => {
        const answers = await ctx.client?.ask({
          user_context: {
            method: "elicitation/create",
            params: {
              message: "What context should the prompt use?",
              requestedSchema: {
                type: "object",
                properties: { context: { type: "string" } },
                required: ["context"]
              }
            }
          }
        });
        const context = (
          answers?.user_context?.content as { context?: unknown } | undefined
        )?.context;
        return [
          {
            role: "user",
            content: `Prompt with context: ${typeof context === "string" ? context : "none given"}`
          }
        ];
      }
    }
  },
  resources: {
    "test://static-text": {
      name: "static-text",
      title: "Static Text Resource",
      description: "A static text resource for testing",
      mimeType: "text/plain",
      read: () => ({ text: "This is the content of the static text resource." })
    },
    "test://static-binary": {
      name: "static-binary",
      title: "Static Binary Resource",
      description: "A static binary resource (image) for testing",
      mimeType: "image/png",
      read: () => ({ blob: PNG })
    },
    "test://watched-resource": {
      name: "watched-resource",
      title: "Watched Resource",
      description: "A resource a client may subscribe to",
      mimeType: "text/plain",
      read: () => ({ text: "Watched resource content" })
    }
  },
  resourceTemplates: {
    "test://template/{id}/data": {
      name: "template",
      title: "Resource Template",
      description: "A resource template with parameter substitution",
      mimeType: "application/json",
      complete: {
        id: (value) => ["1", "2", "123"].filter((v) => v.startsWith(value))
      },
      read: ({ id }) => ({
        text: JSON.stringify({
          id,
          templateTest: true,
          data: `Data for ID: ${id}`
        })
      })
    }
  }
};
