import { describe, expect, it } from "vitest";
import {
  decisionJson,
  expectedDecision,
  options,
  request,
  sectionOf,
  textRequest,
  treeData
} from "./fixtures.case";
import { ModelError } from "./model-error";
import {
  decisionMessages,
  decisionSchema,
  parseDecision,
  textMessages
} from "./prompt";

// What the prompt says and how decisions are read back, without a network.
describe("decisionMessages", () => {
  const [system, user] = decisionMessages(request());

  it("puts the atlas in the system message and tree data in tagged user sections", () => {
    expect(system?.role).toBe("system");
    expect(user?.role).toBe("user");
    expect(sectionOf(system!.content, "atlas")).toContain(
      "A librarian for a paper archive."
    );
    const u = user!.content;
    expect(sectionOf(u, "user_prompt")).toBe("How many papers mention otters?");
    expect(sectionOf(u, "conversation_history")).toBe(
      "user: Hi there\n\nassistant: Hello! Ask me about papers."
    );
    expect(sectionOf(u, "environment")).toContain('"title":"Otters"');
    expect(sectionOf(u, "tasks_completed")).toContain("search");
    expect(sectionOf(u, "errors")).toContain("Collection not found: pappers");
    expect(sectionOf(u, "tree_count")).toContain("2/5");
    expect(sectionOf(u, "node")).toBe("root");
    expect(sectionOf(u, "instruction")).toBe(
      "Pick a tool that answers the question."
    );
    expect(sectionOf(u, "feedback")).toBe("None.");
  });

  it("lists available options with their input schemas and unavailable ones with reasons", () => {
    const available = JSON.parse(
      sectionOf(user!.content, "available_options")!
    );
    expect(
      available.map((o: { function_name: string }) => o.function_name)
    ).toEqual(["count", "search_tools", "text_response"]);
    expect(available[0].inputs).toEqual(options[0]!.inputs);
    expect(available[1].inputs).toBe("No inputs are needed for this function.");
    // A branch shows the tools it leads to (Elysia's future tools).
    expect(available[1].leads_to).toEqual({
      query: {},
      filters: { by_year: {} }
    });
    expect(available[2].inputs).toBe("No inputs are needed for this function.");
    const unavailable = JSON.parse(
      sectionOf(user!.content, "unavailable_options")!
    );
    expect(unavailable).toEqual([
      {
        function_name: "summarise",
        description: "Summarise results.",
        available_when: "Only after a search has results."
      }
    ]);
  });

  it("carries feedback from earlier attempts", () => {
    const [, u] = decisionMessages(
      request({ feedback: ['"sumarise" is not an option here.'] })
    );
    expect(sectionOf(u!.content, "feedback")).toBe(
      '- "sumarise" is not an option here.'
    );
  });

  it("writes the schema into the prompt only when the reply is bare JSON", () => {
    const [jsonSystem] = decisionMessages(request(), "json");
    const [toolSystem] = decisionMessages(request(), "tool");
    expect(jsonSystem!.content).toContain('"function_name"');
    expect(toolSystem!.content).not.toContain('"function_name"');
    expect(toolSystem!.content).toContain("decide");
  });

  it("says None. for empty sections", () => {
    const [, u] = decisionMessages(
      request({
        treeData: treeData({
          conversationHistory: [],
          tasksCompleted: [],
          errors: {},
          environmentView: ""
        }),
        unavailable: []
      })
    );
    for (const tag of [
      "conversation_history",
      "tasks_completed",
      "errors",
      "environment",
      "unavailable_options"
    ]) {
      expect(sectionOf(u!.content, tag)).toBe("None.");
    }
  });
});

describe("textMessages", () => {
  it("asks for a final answer from the tree data, saying why", () => {
    const [system, user] = textMessages(textRequest);
    expect(system?.role).toBe("system");
    expect(sectionOf(system!.content, "atlas")).toContain("Plain and brief.");
    expect(sectionOf(user!.content, "user_prompt")).toBe(
      "How many papers mention otters?"
    );
    expect(sectionOf(user!.content, "environment")).toContain("Otters");
    expect(sectionOf(user!.content, "instruction")).toContain("limit");
    const [, ended] = textMessages({ ...textRequest, reason: "ended" });
    expect(sectionOf(ended!.content, "instruction")).toContain("ended");
  });
});

describe("decisionSchema", () => {
  it("has Elysia's six fields with the option names as an enum", () => {
    const schema = decisionSchema(options) as {
      properties: Record<string, { type: string; enum?: string[] }>;
      required: string[];
    };
    expect(Object.keys(schema.properties)).toEqual([
      "reasoning",
      "message_update",
      "impossible",
      "function_name",
      "function_inputs",
      "end_actions"
    ]);
    expect(schema.required).toEqual(Object.keys(schema.properties));
    expect(schema.properties.function_name?.enum).toEqual([
      "count",
      "search_tools",
      "text_response"
    ]);
    expect(schema.properties.function_inputs?.type).toBe("object");
    expect(schema.properties.end_actions?.type).toBe("boolean");
  });
});

describe("parseDecision", () => {
  it("reads JSON text, fenced JSON and objects", () => {
    expect(parseDecision(JSON.stringify(decisionJson), options)).toEqual(
      expectedDecision
    );
    expect(
      parseDecision(
        `\`\`\`json\n${JSON.stringify(decisionJson)}\n\`\`\``,
        options
      )
    ).toEqual(expectedDecision);
    expect(parseDecision(decisionJson, options)).toEqual(expectedDecision);
    expect(
      parseDecision(
        `<think>hmm {x}</think>Here you go: ${JSON.stringify(decisionJson)} done`,
        options
      )
    ).toEqual(expectedDecision);
  });

  it("strips quotes and backticks around function_name", () => {
    for (const name of ['"count"', "`count`", "'count'", " ``count`` "]) {
      expect(
        parseDecision({ ...decisionJson, function_name: name }, options).tool
      ).toBe("count");
    }
  });

  it("returns an unknown function_name as it is, for the tree to re-ask", () => {
    expect(
      parseDecision({ ...decisionJson, function_name: "sumarise" }, options)
        .tool
    ).toBe("sumarise");
    expect(
      parseDecision({ ...decisionJson, function_name: "Count" }, options).tool
    ).toBe("count");
  });

  it("accepts quoted booleans, string inputs and missing optional fields", () => {
    expect(
      parseDecision(
        {
          function_name: "count",
          function_inputs: '{"collection":"papers"}',
          end_actions: "true",
          impossible: "false"
        },
        options
      )
    ).toEqual({
      tool: "count",
      inputs: { collection: "papers" },
      end: true,
      message: "",
      impossible: false
    });
    expect(
      parseDecision(
        { function_name: "search_tools", function_inputs: null },
        options
      ).inputs
    ).toEqual({});
  });

  it("throws a retryable ModelError for invalid JSON or shape", () => {
    for (const raw of [
      "not json at all",
      '{"function_name": ',
      { message_update: "no name" },
      { ...decisionJson, function_inputs: [1, 2] },
      { ...decisionJson, end_actions: "maybe" },
      42
    ]) {
      let caught: unknown;
      try {
        parseDecision(raw, options);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ModelError);
      expect((caught as ModelError).retryable).toBe(true);
    }
  });
});

/** A model whose decide() fails from a script before it succeeds. */
