/** @module How the page writes a query's filters and a tool's input in one line. */

export interface Filter {
  field: string;
  op: string;
  value: unknown;
}

const OPS: Record<string, string> = { eq: "=", lt: "<", gt: ">" };

const isFilter = (value: unknown): value is Filter =>
  typeof value === "object" &&
  value !== null &&
  "field" in value &&
  "op" in value &&
  "value" in value;

/** `rating > 4.5`: a number rounded as a person would write it. */
export const filterText = (f: Filter): string =>
  `${f.field} ${OPS[f.op] ?? f.op} ${
    typeof f.value === "number" ? Number(f.value.toFixed(2)) : String(f.value)
  }`;

const valueText = (value: unknown): string => {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every(isFilter))
    return value.map(filterText).join(", ");
  return JSON.stringify(value);
};

/** `collection: products · filters: animal = cat`, skipping empty fields. */
export const inputText = (input: unknown): string => {
  if (typeof input !== "object" || input === null) return "";
  return Object.entries(input)
    .filter(
      ([, v]) =>
        v !== undefined &&
        v !== null &&
        v !== "" &&
        !(Array.isArray(v) && v.length === 0)
    )
    .map(([k, v]) => `${k}: ${valueText(v)}`)
    .join(" · ");
};
