/** @module Forms generated from JSON schemas (tool parameters, task schemas): one field per property. */

import { h } from "./dom";

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  [key: string]: unknown;
}

export interface SchemaForm {
  element: HTMLElement;
  /** The arguments, or the first field that is not valid. */
  read():
    | { ok: true; value: Record<string, unknown> }
    | { ok: false; message: string };
}

interface Field {
  name: string;
  read(): { ok: true; value?: unknown } | { ok: false; message: string };
}

const typeOf = (schema: JsonSchema): string => {
  const t = Array.isArray(schema.type)
    ? schema.type.find((x) => x !== "null")
    : schema.type;
  return t ?? (schema.enum ? "enum" : "json");
};

const field = (
  name: string,
  schema: JsonSchema,
  required: boolean
): { row: HTMLElement; field: Field } => {
  const id = `f-${name}-${Math.random().toString(36).slice(2, 8)}`;
  const label = h(
    "label",
    { for: id },
    name,
    required ? h("span", { class: "req", title: "required" }, " *") : null
  );
  const hint = schema.description
    ? h("small", { class: "hint" }, schema.description)
    : null;
  const type = typeOf(schema);
  const missing = (): { ok: false; message: string } => ({
    ok: false,
    message: `${name} is required.`
  });

  if (schema.enum) {
    const select = h(
      "select",
      { id, name },
      required ? null : h("option", { value: "" }, "—"),
      ...schema.enum.map((v) =>
        h("option", { value: JSON.stringify(v) }, String(v))
      )
    );
    if (schema.default !== undefined)
      select.value = JSON.stringify(schema.default);
    return {
      row: h("div", { class: "field" }, label, select, hint),
      field: {
        name,
        read: () =>
          select.value === ""
            ? required
              ? missing()
              : { ok: true }
            : { ok: true, value: JSON.parse(select.value) as unknown }
      }
    };
  }
  if (type === "boolean") {
    const box = h("input", {
      id,
      name,
      type: "checkbox",
      checked: schema.default === true
    });
    return {
      row: h("div", { class: "field" }, label, box, hint),
      field: { name, read: () => ({ ok: true, value: box.checked }) }
    };
  }
  if (type === "number" || type === "integer") {
    const input = h("input", {
      id,
      name,
      type: "number",
      step: type === "integer" ? "1" : "any",
      value: schema.default,
      min: schema.minimum,
      max: schema.maximum
    });
    return {
      row: h("div", { class: "field" }, label, input, hint),
      field: {
        name,
        read: () => {
          if (input.value === "") return required ? missing() : { ok: true };
          const n = Number(input.value);
          if (!Number.isFinite(n))
            return { ok: false, message: `${name} must be a number.` };
          if (type === "integer" && !Number.isInteger(n)) {
            return { ok: false, message: `${name} must be a whole number.` };
          }
          if (schema.minimum !== undefined && n < schema.minimum) {
            return {
              ok: false,
              message: `${name} must be ≥ ${schema.minimum}.`
            };
          }
          if (schema.maximum !== undefined && n > schema.maximum) {
            return {
              ok: false,
              message: `${name} must be ≤ ${schema.maximum}.`
            };
          }
          return { ok: true, value: n };
        }
      }
    };
  }
  if (type === "string") {
    const input = h("input", { id, name, type: "text", value: schema.default });
    return {
      row: h("div", { class: "field" }, label, input, hint),
      field: {
        name,
        read: () =>
          input.value === "" && required
            ? missing()
            : input.value === ""
              ? { ok: true }
              : { ok: true, value: input.value }
      }
    };
  }
  // Arrays, objects and unions: JSON typed by hand.
  const area = h("textarea", {
    id,
    name,
    rows: 2,
    placeholder: "JSON",
    value: schema.default === undefined ? "" : JSON.stringify(schema.default)
  });
  return {
    row: h("div", { class: "field" }, label, area, hint),
    field: {
      name,
      read: () => {
        if (area.value.trim() === "")
          return required ? missing() : { ok: true };
        try {
          return { ok: true, value: JSON.parse(area.value) as unknown };
        } catch {
          return { ok: false, message: `${name} is not valid JSON.` };
        }
      }
    }
  };
};

export const schemaForm = (schema: JsonSchema): SchemaForm => {
  const required = new Set(schema.required ?? []);
  const built = Object.entries(schema.properties ?? {}).map(([name, s]) =>
    field(name, s, required.has(name))
  );
  const element = h(
    "div",
    { class: "schema-form" },
    ...(built.length === 0
      ? [h("small", { class: "hint" }, "No parameters.")]
      : built.map((b) => b.row))
  );
  return {
    element,
    read: () => {
      const value: Record<string, unknown> = {};
      for (const { field: f } of built) {
        const r = f.read();
        if (!r.ok) return r;
        if (r.value !== undefined) value[f.name] = r.value;
      }
      return { ok: true, value };
    }
  };
};
