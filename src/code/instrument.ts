/**
 * @module Preparing the model's JavaScript: parsed here, so a syntax error
 * is answered before any isolate starts, and instrumented with a step
 * counter the sandbox checks.
 */

import { parse } from "acorn";

/** The model's code, ready for the sandbox, or why it cannot run. */
export type Prepared =
  | { ok: true; body: string }
  | { ok: false; message: string };

interface AstNode {
  type: string;
  start: number;
  end: number;
  body?: AstNode | AstNode[];
  expression?: AstNode;
  directive?: string;
  [key: string]: unknown;
}

interface Edit {
  at: number;
  text: string;
  /** Closes what an earlier edit opened (a `}` or `)`). */
  closes?: true;
}

const LOOPS = new Set([
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement"
]);
const FUNCTIONS = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression"
]);
const MODULE_SYNTAX = new Set([
  "ImportDeclaration",
  "ExportNamedDeclaration",
  "ExportDefaultDeclaration",
  "ExportAllDeclaration",
  "ImportExpression"
]);

const isNode = (value: unknown): value is AstNode =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { type?: unknown }).type === "string";

/** Every node below `node`, depth first. */
function* walk(node: AstNode): Generator<AstNode> {
  yield node;
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" || key === "start" || key === "end") continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) yield* walk(item);
    } else if (isNode(value)) yield* walk(value);
  }
}

/** A tick at the start of a loop's or a function's body, wrapping a body that is no block. */
const tickEdits = (body: AstNode, tick: string, arrow: boolean): Edit[] =>
  body.type === "BlockStatement"
    ? [{ at: body.start + 1, text: `${tick}();` }]
    : arrow
      ? [
          { at: body.start, text: `(${tick}(),` },
          { at: body.end, text: ")", closes: true }
        ]
      : [
          { at: body.start, text: `{${tick}();` },
          { at: body.end, text: "}", closes: true }
        ];

/**
 * Parses `code` as the body of an async function (top-level `await` and
 * `return` allowed) and returns it with `tick()` called at the start of
 * every loop iteration and every function call, so the sandbox can stop
 * code that never ends even where the platform enforces no CPU limit
 * (local workerd does not). Edits never add a line, so line numbers in
 * the isolate's errors are the model's. A last expression statement
 * becomes the return value, as in a REPL: `rows.length` at the end
 * answers the count.
 */
export const prepareCode = (code: string, tick: string): Prepared => {
  let program: AstNode;
  try {
    program = parse(code, {
      ecmaVersion: "latest",
      sourceType: "module",
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      locations: false
    }) as unknown as AstNode;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `SyntaxError: ${message}` };
  }
  const edits: Edit[] = [];
  // First: it is the outermost of any edits at the same positions.
  const statements = Array.isArray(program.body) ? program.body : [];
  const last = statements.at(-1);
  if (
    last?.type === "ExpressionStatement" &&
    last.directive === undefined &&
    last.expression !== undefined
  ) {
    edits.push(
      { at: last.expression.start, text: "return (" },
      { at: last.expression.end, text: ")", closes: true }
    );
  }
  for (const node of walk(program)) {
    if (MODULE_SYNTAX.has(node.type)) {
      return {
        ok: false,
        message:
          "SyntaxError: import and export are not available: the code runs as the body of an async function, with no modules to import."
      };
    }
    if (LOOPS.has(node.type) && isNode(node.body)) {
      edits.push(...tickEdits(node.body, tick, false));
    } else if (FUNCTIONS.has(node.type) && isNode(node.body)) {
      edits.push(
        ...tickEdits(node.body, tick, node.type === "ArrowFunctionExpression")
      );
    }
  }
  // At one position, closers come first, inner (found later) before
  // outer; then openers, outer before inner.
  const rank = (e: Edit & { i: number }) => (e.closes ? -e.i : 1e9 + e.i);
  const ordered = edits
    .map((edit, i) => ({ ...edit, i }))
    .sort((a, b) => a.at - b.at || rank(a) - rank(b));
  const pieces: string[] = [];
  let from = 0;
  for (const edit of ordered) {
    pieces.push(code.slice(from, edit.at), edit.text);
    from = edit.at;
  }
  pieces.push(code.slice(from));
  const body = pieces.join("");
  return { ok: true, body };
};
