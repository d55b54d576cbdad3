/** @module The strict "is this JSON?" check state values pass before they are stored. */

const describe = (value: object): string =>
  Object.getPrototypeOf(value)?.constructor?.name ?? "object";

const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * Says where `value` stops being JSON ("value.a is a function"), or returns
 * undefined when it is.
 * Stricter than `JSON.stringify`, which would quietly turn NaN into null, a
 * Date into a string and a Map into `{}`: a state value must read back
 * exactly as it was written. Object properties holding `undefined` are
 * allowed (JSON drops them), because zod's optional fields produce them.
 */
export const jsonProblem = (
  value: unknown,
  path = "$",
  ancestors: Set<object> = new Set()
): string | undefined => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `${path} is ${value}`;
    case "object":
      break;
    default:
      return `${path} is ${value === undefined ? "undefined" : `a ${typeof value}`}`;
  }
  if (value === null) return undefined;
  if (ancestors.has(value)) return `${path} refers back to itself`;
  if (!Array.isArray(value) && !isPlain(value)) {
    return `${path} is a ${describe(value)}, not a plain object`;
  }
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (!(i in value)) return `${path}[${i}] is a hole in the array`;
        const problem = jsonProblem(value[i], `${path}[${i}]`, ancestors);
        if (problem) return problem;
      }
      return undefined;
    }
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      const problem = jsonProblem(item, `${path}.${key}`, ancestors);
      if (problem) return problem;
    }
    return undefined;
  } finally {
    ancestors.delete(value);
  }
};
