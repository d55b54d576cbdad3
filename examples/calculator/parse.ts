/** @module A safe arithmetic evaluator: a tokenizer and a recursive-descent parser, never `eval`. */

/** The longest expression accepted; a model never needs more for GSM8K. */
export const MAX_EXPRESSION_LENGTH = 200;

/** A mistake in the expression, worded for the model that wrote it. */
export class CalculatorError extends Error {
  override readonly name = "CalculatorError";
}

type Token =
  | { kind: "number"; value: number; at: number }
  | { kind: "op"; value: "+" | "-" | "*" | "/" | "^"; at: number }
  | { kind: "paren"; value: "(" | ")"; at: number };

// Models write the typographic signs as often as the ASCII ones.
const OPERATORS: Record<string, "+" | "-" | "*" | "/" | "^"> = {
  "+": "+",
  "-": "-",
  "−": "-",
  "*": "*",
  "×": "*",
  "/": "/",
  "÷": "/",
  "^": "^"
};

const NUMBER_RE = /\d+(?:\.\d*)?|\.\d+/y;

const tokenize = (source: string): Token[] => {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (source.startsWith("**", i)) {
      tokens.push({ kind: "op", value: "^", at: i });
      i += 2;
    } else if (OPERATORS[ch] !== undefined) {
      tokens.push({ kind: "op", value: OPERATORS[ch], at: i });
      i++;
    } else if (ch === "(" || ch === ")") {
      tokens.push({ kind: "paren", value: ch, at: i });
      i++;
    } else {
      NUMBER_RE.lastIndex = i;
      const match = NUMBER_RE.exec(source);
      if (match === null) {
        throw new CalculatorError(
          `Unexpected character "${ch}" at position ${i + 1}. Use numbers, + - * / ^ and parentheses.`
        );
      }
      tokens.push({ kind: "number", value: Number(match[0]), at: i });
      i += match[0].length;
    }
  }
  return tokens;
};

/** Each operation is checked, so an overflow is reported where it happens. */
const finite = (value: number, what: string): number => {
  if (!Number.isFinite(value)) {
    throw new CalculatorError(`The ${what} is not a finite number.`);
  }
  return value;
};

/**
 * Grammar, loosest first (unary minus binds looser than `^`, as in Python
 * and in mathematics, so `-2^2` is -4 while `2^-1` is 0.5):
 *
 *   sum     := product (("+" | "-") product)*
 *   product := unary (("*" | "/") unary)*
 *   unary   := ("+" | "-") unary | power
 *   power   := atom ("^" unary)?          right-associative
 *   atom    := number | "(" sum ")"
 */
class Parser {
  #tokens: Token[];
  #pos = 0;
  #length: number;

  constructor(tokens: Token[], length: number) {
    this.#tokens = tokens;
    this.#length = length;
  }

  parse(): number {
    const value = this.#sum();
    const extra = this.#tokens[this.#pos];
    if (extra !== undefined) {
      throw new CalculatorError(
        `Unexpected "${extra.value}" at position ${extra.at + 1}.`
      );
    }
    return value;
  }

  #peekOp(...ops: string[]): string | undefined {
    const t = this.#tokens[this.#pos];
    return t?.kind === "op" && ops.includes(t.value) ? t.value : undefined;
  }

  #sum(): number {
    let value = this.#product();
    for (let op = this.#peekOp("+", "-"); op; op = this.#peekOp("+", "-")) {
      this.#pos++;
      const right = this.#product();
      value = finite(op === "+" ? value + right : value - right, "sum");
    }
    return value;
  }

  #product(): number {
    let value = this.#unary();
    for (let op = this.#peekOp("*", "/"); op; op = this.#peekOp("*", "/")) {
      this.#pos++;
      const right = this.#unary();
      if (op === "/" && right === 0) {
        throw new CalculatorError("Division by zero.");
      }
      value = finite(op === "*" ? value * right : value / right, "product");
    }
    return value;
  }

  #unary(): number {
    const op = this.#peekOp("+", "-");
    if (op === undefined) return this.#power();
    this.#pos++;
    const value = this.#unary();
    return op === "-" ? -value : value;
  }

  #power(): number {
    const base = this.#atom();
    if (this.#peekOp("^") === undefined) return base;
    this.#pos++;
    return finite(base ** this.#unary(), "power");
  }

  #atom(): number {
    const t = this.#tokens[this.#pos];
    if (t === undefined) {
      throw new CalculatorError(
        `The expression ends too early (after position ${this.#length}).`
      );
    }
    this.#pos++;
    if (t.kind === "number") return t.value;
    if (t.value === "(") {
      const value = this.#sum();
      const close = this.#tokens[this.#pos];
      if (close?.kind !== "paren" || close.value !== ")") {
        throw new CalculatorError(
          `Missing ")" for the "(" at position ${t.at + 1}.`
        );
      }
      this.#pos++;
      return value;
    }
    throw new CalculatorError(
      `Unexpected "${t.value}" at position ${t.at + 1}.`
    );
  }
}

/**
 * Evaluates an arithmetic expression: numbers, `+ - * /` (also `− × ÷`),
 * `^` or `**`, parentheses and unary minus. Throws `CalculatorError` for
 * anything else, for division by zero and for non-finite results.
 *
 * @example
 * evaluate("2 + 3 × (4 - 1)^2"); // 29
 */
export const evaluate = (expression: string): number => {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError(
      `The expression is ${expression.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}.`
    );
  }
  const tokens = tokenize(expression);
  if (tokens.length === 0)
    throw new CalculatorError("The expression is empty.");
  return new Parser(tokens, expression.length).parse();
};

/**
 * A result as the model reads it: at most 12 significant digits, so binary
 * rounding noise (`0.1 + 0.2`) does not look like a different answer.
 */
export const formatNumber = (value: number): string => {
  const rounded = Number(value.toPrecision(12));
  return String(Object.is(rounded, -0) ? 0 : rounded);
};
