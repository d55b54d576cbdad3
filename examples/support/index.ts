/**
 * @module A support desk with a simulated customer: the multi-agent
 * example of an agent the environment plays. The support agent (`agent`)
 * looks orders up and refunds them; the customer (`user`) is played by
 * the environment and holds a goal the desk is never shown, only told of
 * by the customer: which of their orders to refund. It is found from the
 * task on the server, not kept in the session, because the customer says
 * it (the hidden store is for what no agent's view may ever hold, and
 * validation's leakage check would rightly flag it). With a model configured
 * on the deployment the customer is that model, told its goal; without
 * one, a script answers in its place. The episode ends when the customer
 * says it is done, and both are rewarded 1 if exactly the right order was
 * refunded, else 0.
 */

import {
  contentText,
  dataset,
  defineEnvironment,
  defineState,
  type Message,
  type Play,
  type StepResult,
  toolCalls
} from "roost-edge/core";
import * as z from "zod";

interface Order {
  id: string;
  item: string;
}

interface Customer {
  email: string;
  orders: Order[];
  /** The order they want refunded: their hidden goal. */
  refund: string;
  complaint: string;
}

const CUSTOMERS: Customer[] = [
  {
    email: "ada@example.com",
    orders: [
      { id: "A-100", item: "kettle" },
      { id: "A-101", item: "teapot" }
    ],
    refund: "A-101",
    complaint: "My teapot arrived cracked."
  },
  {
    email: "bo@example.com",
    orders: [
      { id: "B-200", item: "desk lamp" },
      { id: "B-201", item: "bulbs" },
      { id: "B-202", item: "lamp shade" }
    ],
    refund: "B-200",
    complaint: "The lamp I bought does not switch on."
  },
  {
    email: "cy@example.com",
    orders: [{ id: "C-300", item: "umbrella" }],
    refund: "C-300",
    complaint: "My umbrella broke the first time I opened it."
  }
];

/** What the customer says when the conversation is over for them. */
export const DONE = "[done]";

interface Goal {
  email: string;
  refund: string;
  item: string;
}

/** The goal of the task's customer. */
const goalOf = (task: { customer: number }): Goal => {
  const c = CUSTOMERS[task.customer]!;
  const item = c.orders.find((o) => o.id === c.refund)!.item;
  return { email: c.email, refund: c.refund, item };
};

/** The customer's part without a model: a short script over the shared record. */
const scripted = (goal: Goal, refunded: readonly string[]): string => {
  if (refunded.includes(goal.refund)) return `Thank you, that is all. ${DONE}`;
  if (refunded.length > 0)
    return `That is the wrong order: I meant the ${goal.item}. ${DONE}`;
  return `It is order ${goal.refund}, the ${goal.item}. Please refund it.`;
};

/**
 * The customer as a model plays it: its goal in the system prompt, the
 * conversation from its side (the desk's words are what it is told).
 */
const prompt = (goal: Goal, messages: readonly Message[]) => [
  {
    role: "system" as const,
    content: `You are a customer writing to a support desk. Your email is ${goal.email}. You want order ${goal.refund} (the ${goal.item}) refunded, and nothing else. Answer briefly. When it is refunded, or the desk refunds something else, thank them or complain and end your message with ${DONE}.`
  },
  ...messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => ({ role: m.role, content: contentText(m.content) }))
];

const playCustomer: Play = async ({ ctx, messages, model }) => {
  const goal = goalOf(ctx.task as { customer: number });
  const refunded = ctx.state.get("refunded") as string[];
  const asked = model();
  if (asked === undefined) return scripted(goal, refunded);
  return asked.chat(prompt(goal, messages));
};

const task = z
  .object({
    customer: z
      .number()
      .int()
      .min(0)
      .max(CUSTOMERS.length - 1)
  })
  .default({ customer: 0 });

export const support = defineEnvironment({
  name: "support",
  description:
    "A support desk: refund the order a simulated customer wants, which only the customer knows; 1 if exactly it was refunded.",
  agents: {
    agent: {
      description: "The support desk: looks orders up, refunds, and writes.",
      tools: ["find_orders", "refund"]
    },
    user: {
      description: "The customer, played by the environment.",
      play: playCustomer
    }
  },
  task,
  dataset: dataset({
    size: CUSTOMERS.length,
    get: (customer) => ({ customer })
  }),
  state: defineState({
    refunded: { type: z.array(z.string()).default([]) }
  }),
  maxSteps: 12,
  tools: (tool) => ({
    find_orders: tool({
      description: "The orders of the customer with this email.",
      input: z.object({ email: z.string() }),
      run: ({ email }) => {
        const c = CUSTOMERS.find((x) => x.email === email);
        if (c === undefined) return `No customer has the email ${email}.`;
        return c.orders.map((o) => `${o.id}: ${o.item}`).join("\n");
      }
    }),
    refund: tool({
      description: "Refund one order, by its id.",
      input: z.object({ order: z.string() }),
      run: ({ order }, ctx) => {
        const known = CUSTOMERS.some((c) =>
          c.orders.some((o) => o.id === order)
        );
        if (!known) return `There is no order ${order}.`;
        const refunded = ctx.state.get("refunded");
        if (refunded.includes(order))
          return `Order ${order} is refunded already.`;
        ctx.state.set("refunded", [...refunded, order]);
        return `Order ${order} is refunded.`;
      }
    })
  }),
  reset: ({ task }) => {
    const c = CUSTOMERS[task.customer]!;
    return {
      observations: {
        agent: `A customer writes: "${c.complaint} My email is ${c.email}." Help them with find_orders and refund, and answer them in your message's text.`,
        user: `You wrote to the desk: "${c.complaint}"`
      },
      turn: "agent"
    };
  },
  step: async (action, ctx): Promise<StepResult> => {
    const said = contentText(action.content).trim();
    if (ctx.agent === "user") {
      if (!said.includes(DONE))
        return {
          observations: { agent: `The customer: ${said}` },
          turn: "agent"
        };
      const goal = goalOf(ctx.task);
      const refunded = ctx.state.get("refunded");
      const met = refunded.length === 1 && refunded[0] === goal.refund ? 1 : 0;
      return {
        observations: { agent: `The customer: ${said}` },
        rewards: { agent: met, user: met },
        done: true
      };
    }
    const results = await ctx.executeToolCalls(action);
    // Tool calls alone keep the turn with the desk; words go to the customer.
    if (said === "") {
      return {
        observations: {
          agent:
            results.length > 0
              ? results
              : "Call a tool, or write to the customer."
        },
        turn: "agent"
      };
    }
    return {
      observations: { agent: results, user: `The desk: ${said}` },
      turn: "user"
    };
  },
  validation: {
    // The desk that reads the goal: look the orders up, refund the one, say so.
    oracle: (t) => {
      const c = CUSTOMERS[t.customer]!;
      const moves = [
        toolCalls({ name: "find_orders", arguments: { email: c.email } }),
        toolCalls({ name: "refund", arguments: { order: c.refund } }),
        {
          role: "assistant" as const,
          content: `Order ${c.refund} is refunded.`
        }
      ];
      let next = 0;
      return () => moves[Math.min(next++, moves.length - 1)]!;
    }
  }
});
