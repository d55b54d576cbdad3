/** @module A tiny arithmetic evaluator (+ - * / % ** and parentheses) for the scripted policy's own checks. */

/**
 * Evaluates an arithmetic expression, or returns undefined if it is not
 * one. Never uses `eval`: the text comes from an environment.
 *
 * @example
 * evaluate("3 * (4 + 5)"); // 27
 */
export const evaluate = (text: string): number | undefined => {
  const tokens = text.match(/\d+(?:\.\d+)?|\*\*|[-+*/%()^]|\S/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const take = () => tokens[at++];

  const primary = (): number => {
    const token = take();
    if (token === "(") {
      const value = sum();
      if (take() !== ")") throw new Error("unbalanced");
      return value;
    }
    if (token === "-") return -power();
    if (token === "+") return power();
    if (token !== undefined && /^\d/.test(token)) return Number(token);
    throw new Error("unexpected");
  };
  const power = (): number => {
    const base = primary();
    if (peek() === "**" || peek() === "^") {
      take();
      return base ** power();
    }
    return base;
  };
  const product = (): number => {
    let value = power();
    for (let op = peek(); op === "*" || op === "/" || op === "%"; op = peek()) {
      take();
      const right = power();
      value =
        op === "*" ? value * right : op === "/" ? value / right : value % right;
    }
    return value;
  };
  const sum = (): number => {
    let value = product();
    for (let op = peek(); op === "+" || op === "-"; op = peek()) {
      take();
      const right = product();
      value = op === "+" ? value + right : value - right;
    }
    return value;
  };

  try {
    if (tokens.length === 0) return undefined;
    const value = sum();
    return at === tokens.length && Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
};
