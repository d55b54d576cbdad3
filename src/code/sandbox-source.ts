/**
 * @module The modules a code run's isolate loads: the model's prepared code
 * as the body of an async function, and a main module that captures the
 * console, counts steps, installs the granted capabilities as globals and
 * answers one JSON-shaped reply.
 *
 * Nothing here is trusted by the session: the model's code shares this
 * isolate and may rewrite any global the main module uses after it
 * started. The main module keeps its own references to what it needs, and
 * the session checks and caps the reply (reply.ts) whatever it says.
 */

/** The main module's source. `tick` is the step counter's global name, unguessable per run. */
const mainModule = (tick: string): string => `
import { WorkerEntrypoint } from "cloudflare:workers";
import code from "./code.js";

const TICK = ${JSON.stringify(tick)};
const stringify = JSON.stringify;
const encoder = new TextEncoder();
const toText = String;
let limits = { steps: 1, outputBytes: 1, resultBytes: 1 };
let steps = 0;
// The first limit the code hit: from then on every step throws it again,
// so code that catches it still cannot go on, and the reply reports it.
let stopped;
const stop = (message) => {
  if (stopped === undefined) stopped = message;
  throw new RangeError(stopped);
};
Object.defineProperty(globalThis, TICK, {
  value: () => {
    steps += 1;
    if (stopped !== undefined || steps > limits.steps) {
      stop("the code ran more than " + limits.steps + " steps (loop iterations and function calls): it probably never ends");
    }
  },
  writable: false,
  configurable: false,
  enumerable: false
});

const out = { stdout: [], stderr: [], bytes: 0 };
let writing = false;
const replacer = () => {
  const seen = new WeakSet();
  return (_key, value) => {
    if (typeof value === "bigint") return toText(value) + "n";
    if (typeof value === "function") return "[Function]";
    if (typeof value === "object" && value !== null) {
      if (seen.has(value)) return "[Circular]";
      seen.add(value);
    }
    return value;
  };
};
const show = (value) => {
  if (typeof value === "string") return value;
  try {
    const json = stringify(value, replacer());
    return json === undefined ? toText(value) : json;
  } catch {
    try { return toText(value); } catch { return "[unprintable]"; }
  }
};
const write = (stream, args) => {
  // A getter or toString that logs while a line is being formatted.
  if (writing) return;
  writing = true;
  try {
    const line = args.map(show).join(" ") + "\\n";
    out.bytes += encoder.encode(line).length;
    if (out.bytes > limits.outputBytes) {
      stop("the output passed " + limits.outputBytes + " bytes");
    }
    out[stream].push(line);
  } finally {
    writing = false;
  }
};
for (const name of ["log", "info", "debug", "trace"]) {
  console[name] = (...args) => write("stdout", args);
}
for (const name of ["warn", "error"]) {
  console[name] = (...args) => write("stderr", args);
}

const describe = (error) => {
  try {
    const name = error !== null && typeof error === "object" ? toText(error.name) : "Error";
    const message = error !== null && typeof error === "object" ? toText(error.message) : toText(error);
    const stack = error !== null && typeof error === "object" ? toText(error.stack) : "";
    const at = /code\\.js:(\\d+)/.exec(stack);
    return at ? { name, message, line: Number(at[1]) - 1 } : { name, message };
  } catch {
    return { name: "Error", message: "the code threw something that cannot be described" };
  }
};

const install = (capabilities) => {
  for (const name of ["store", "results", "state", "hidden"]) {
    if (capabilities[name] !== undefined) globalThis[name] = capabilities[name];
  }
  const net = capabilities.network;
  if (net === undefined) return;
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
    const answer = await net.fetch({
      url: request.url,
      method: request.method,
      headers: [...request.headers],
      body
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
};

export default class extends WorkerEntrypoint {
  async run(input, capabilities) {
    limits = input.limits;
    install(capabilities);
    let value;
    let error;
    let threw = false;
    try {
      value = await code();
    } catch (e) {
      threw = true;
      error = e;
    }
    const reply = { stdout: out.stdout.join(""), stderr: out.stderr.join("") };
    if (stopped !== undefined) {
      return { ...reply, ok: false, error: { name: "LimitError", message: stopped } };
    }
    if (threw) return { ...reply, ok: false, error: describe(error) };
    if (value === undefined) return { ...reply, ok: true };
    let json;
    try {
      json = stringify(value);
    } catch (e) {
      return { ...reply, ok: false, error: { name: "TypeError", message: "the return value is not JSON: " + describe(e).message } };
    }
    if (json === undefined) {
      return { ...reply, ok: false, error: { name: "TypeError", message: "the return value (a " + typeof value + ") is not JSON" } };
    }
    if (encoder.encode(json).length > limits.resultBytes) {
      return { ...reply, ok: false, error: { name: "LimitError", message: "the return value passed " + limits.resultBytes + " bytes as JSON" } };
    }
    return { ...reply, ok: true, result: json };
  }
}
`;

/**
 * The isolate's modules. The code is the body of an async function on the
 * line after the wrapper's first, so an error's line in `code.js` less
 * one is the model's line.
 */
export const sandboxModules = (
  body: string,
  tick: string
): Record<string, string> => ({
  "main.js": mainModule(tick),
  "code.js": `export default async function () {\n${body}\n}\n`
});
