/**
 * @module mcp-everything's tools that answer at once: every kind of
 * content, an error, progress and log lines while running, and a schema
 * with JSON Schema 2020-12's composition keywords.
 */

import { content, log, progress, tool } from "roost-edge/core";
import * as z from "zod";

/** A 1×1 red PNG. */
export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/** A minimal WAV file. */
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

const image = {
  type: "image_url",
  image_url: { url: `data:image/png;base64,${PNG}` }
} as const;

// zod says it all: `id` puts the address in $defs, `.meta` adds the
// composition and conditional keywords, strictObject forbids the rest.
const address = z
  .object({ street: z.string().optional(), city: z.string().optional() })
  .meta({ id: "address", $anchor: "addressDef" });

const contact = z
  .strictObject({
    name: z.string().optional(),
    address: address.optional(),
    contactMethod: z.enum(["phone", "email"]).optional(),
    phone: z.string().optional(),
    email: z.string().optional()
  })
  .meta({
    allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
    if: {
      properties: { contactMethod: { const: "phone" } },
      required: ["contactMethod"]
    },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword, in a schema no one awaits.
    then: { required: ["phone"] },
    else: { required: ["email"] }
  });

export const contentTools = {
  test_simple_text: tool({
    description: "Answers plain text.",
    input: z.object({}),
    run: () => "This is a simple text response for testing."
  }),
  test_image_content: tool({
    description: "Answers an image.",
    input: z.object({}),
    run: () => content([image])
  }),
  test_audio_content: tool({
    description: "Answers audio.",
    input: z.object({}),
    run: () =>
      content([
        { type: "input_audio", input_audio: { data: WAV, format: "wav" } }
      ])
  }),
  test_embedded_resource: tool({
    description: "Answers an embedded document.",
    input: z.object({}),
    run: () =>
      content([
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content."
          }
        }
      ])
  }),
  test_multiple_content_types: tool({
    description: "Answers text, an image and a document.",
    input: z.object({}),
    run: () =>
      content([
        { type: "text", text: "Multiple content types test:" },
        image,
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 })
          }
        }
      ])
  }),
  test_error_handling: tool({
    description: "Always fails.",
    input: z.object({}),
    run: () => {
      throw new Error("This tool intentionally returns an error for testing");
    }
  }),
  test_tool_with_logging: tool({
    description: "Writes three log lines while it runs.",
    input: z.object({}),
    run: async function* () {
      yield log("info", "Tool execution started");
      await pause(50);
      yield log("info", "Tool processing data");
      await pause(50);
      yield log("info", "Tool execution completed");
      return "Tool with logging executed successfully";
    }
  }),
  test_tool_with_progress: tool({
    description: "Reports its progress three times.",
    input: z.object({}),
    run: async function* () {
      for (const done of [0, 50, 100]) {
        yield progress(done, 100, `Completed step ${done} of 100`);
        if (done < 100) await pause(50);
      }
      return "Progress reported: 0, 50 and 100 of 100.";
    }
  }),
  json_schema_2020_12_tool: tool({
    description: "Takes a schema with $defs, allOf and if/then/else.",
    input: contact,
    run: (args) =>
      `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`
  }),
  // SEP-2575: what a call sends before its answer relates to it.
  test_streaming_elicitation: tool({
    description: "Reports progress, then answers.",
    input: z.object({}),
    run: async function* () {
      yield progress(50, 100);
      return "Streaming complete";
    }
  }),
  // SEP-2575: a log line reaches only a client that asked for a level.
  test_logging_tool: tool({
    description: "Writes a log line.",
    input: z.object({}),
    run: async function* () {
      yield log("info", "Diagnostic trace logging activated");
      return "Logging evaluated";
    }
  })
};
