/** @module An Elysia-style retrieval environment: query and aggregate a pet shop's products and messages in the session's SQLite. */

import { defineEnvironment, defineState, result } from "roost-edge/core";
import * as z from "zod";
import { catalogTree } from "./agent";
import {
  COLLECTION_NAMES,
  COLLECTIONS,
  FILTER_FIELDS,
  GROUP_FIELDS
} from "./collections";
import { catalogRubric, REFERENCE_KEY } from "./grade";
import { loadCatalog, type Sql } from "./load";
import { runAggregate, runQuery } from "./search";

/** Hidden-store key of the last query as it ran: statement, parameters and rows. */
export const RAW_KEY = "last_raw";

const FilterSchema = z.object({
  field: z.enum(FILTER_FIELDS),
  op: z.enum(["eq", "lt", "gt"]),
  value: z.union([z.string(), z.number()])
});

const QuerySchema = z.object({
  collection: z.enum(COLLECTION_NAMES),
  text: z.string().nullable(),
  filters: z.array(FilterSchema),
  limit: z.number().int()
});

const state = defineState({
  user_context: { type: z.string().default("a pet owner") },
  last_query: { type: QuerySchema.nullable().default(null) }
});

const task = z
  .object({
    question: z.string().default("Which cat toys are rated 4.5 or higher?"),
    /** Replaces the state's default user context for the episode. */
    user_context: z.string().min(1).optional(),
    /**
     * What a right answer says. Reset hides it (the model sees only the
     * question) and the rubric's judge grades answers against it.
     */
    reference: z.string().min(1).max(4096).optional()
  })
  .default({ question: "Which cat toys are rated 4.5 or higher?" });

const requireSql = (sql: Sql | undefined): Sql => {
  if (sql === undefined) {
    throw new Error(
      "The catalog reads its tables from the session's SQLite (ctx.sql), which createLocalSession does not have. Run it in a Roost session."
    );
  }
  return sql;
};

export const catalog = defineEnvironment({
  name: "catalog",
  description:
    "Search and aggregate a pet shop's products and customer messages (Elysia's query and aggregate tools).",
  task,
  state,
  maxSteps: 25,
  // POST /v1/sessions/:id/runs walks this tree (query → aggregate → answer).
  tree: catalogTree,
  tools: (tool) => ({
    query: tool({
      description:
        "Find products or customer messages by words in their text and by field filters.",
      input: z.object({
        collection: z.enum(COLLECTION_NAMES),
        text: z
          .string()
          .min(1)
          .optional()
          .describe(
            "Words to find (case-insensitive): in a product's name or description, or a message's text."
          ),
        filters: z
          .array(FilterSchema)
          .max(8)
          .default([])
          .describe(
            "All must hold. Products: id, name, category, animal, price, rating. Messages: id, author, channel."
          ),
        limit: z.number().int().min(1).max(50).default(10),
        // Filled from state and hidden from the model's schema.
        user_context: z.string().default("")
      }),
      inputsFromState: { user_context: "user_context" },
      outputsToState: { last_query: { source: "query" } },
      run: async function* (args, ctx) {
        const sql = requireSql(ctx.sql);
        const { collection, text, filters, limit } = args;
        const ran = runQuery(sql, {
          collection,
          text,
          filters,
          limit,
          userContext: args.user_context
        });
        ctx.hidden.set(RAW_KEY, ran);
        yield result({
          name: collection,
          objects: ran.rows,
          metadata: { collection, query: text ?? null, filters },
          llmMessage: "Found {count} {collection}.",
          ...COLLECTIONS[collection].display
        });
        return {
          query: { collection, text: text ?? null, filters, limit },
          count: ran.rows.length,
          rows: ran.rows
        };
      }
    }),
    aggregate: tool({
      description:
        "Count products or messages per group, or average products' price or rating per group.",
      input: z.object({
        collection: z.enum(COLLECTION_NAMES),
        group_by: z
          .enum(GROUP_FIELDS)
          .describe(
            "Products: category or animal. Messages: author or channel."
          ),
        metric: z.enum(["count", "avg_price", "avg_rating"]).default("count")
      }),
      run: async function* ({ collection, group_by, metric }, ctx) {
        const ran = runAggregate(requireSql(ctx.sql), {
          collection,
          groupBy: group_by,
          metric
        });
        yield result({
          name: collection,
          objects: ran.rows,
          metadata: { collection, group_by, metric },
          // Columns are whatever the groups have: the group, count, average.
          payloadType: "table"
        });
        return { collection, group_by, metric, groups: ran.rows };
      }
    })
  }),
  rubric: catalogRubric,
  // A model judge grades the answers, and the tools read the session's
  // SQLite, which a local validation run has not: no oracle can be scored.
  validation: {
    noOracle:
      "answers are graded by a model judge against the task's reference, and the tools need a session's SQLite"
  },
  reset: ({ task, ctx }) => {
    // Without SQLite (createLocalSession) reset still works; the tools say why they cannot.
    if (ctx.sql !== undefined) loadCatalog(ctx.sql);
    if (task.reference !== undefined) {
      ctx.hidden.set(REFERENCE_KEY, task.reference);
    }
    if (task.user_context !== undefined) {
      ctx.state.set("user_context", task.user_context);
    }
    return `${task.question}\nSearch the pet shop's products and customer messages with query; count and average them with aggregate. You are helping ${ctx.state.get("user_context")}.`;
  }
});
