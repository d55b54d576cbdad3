/** @module The catalog's two collections: bundled rows, their tables and the columns a tool may name. */

import messages from "./messages.json";
import products from "./products.json";

// Type aliases, not interfaces: they fit `Row`'s index signature as they are.
export type Product = {
  id: number;
  name: string;
  category: string;
  animal: string;
  price: number;
  rating: number;
  description: string;
};

export type Message = {
  id: number;
  author: string;
  channel: string;
  text: string;
};

export type Row = Readonly<Record<string, string | number>>;

export const PRODUCTS: readonly Product[] = products;
export const MESSAGES: readonly Message[] = messages;

export const COLLECTION_NAMES = ["products", "messages"] as const;
export type CollectionName = (typeof COLLECTION_NAMES)[number];

/** Every column a filter may name, over both collections (the schema's enum). */
export const FILTER_FIELDS = [
  "id",
  "name",
  "category",
  "animal",
  "price",
  "rating",
  "author",
  "channel"
] as const;
export const GROUP_FIELDS = [
  "category",
  "animal",
  "author",
  "channel"
] as const;

export interface Collection {
  /** Prefixed, so the environment's tables never meet Roost's own. */
  table: string;
  /** Its CREATE TABLE IF NOT EXISTS statement. */
  create: string;
  columns: readonly string[];
  /** Columns `text` is matched against. */
  text: readonly string[];
  filterable: readonly string[];
  groupable: readonly string[];
  /** Rows whose value here is named in the user's context rank first. */
  contextColumn?: string;
  rows: readonly Row[];
  /** How a frontend draws a query's rows: `{ displayField: column }`. */
  display: { payloadType: string; mapping: Record<string, string> };
}

// Only names from these lists are ever written into SQL; every value a
// model sends is a bound parameter.
export const COLLECTIONS: Record<CollectionName, Collection> = {
  products: {
    table: "catalog_products",
    create: `CREATE TABLE IF NOT EXISTS catalog_products (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      category TEXT NOT NULL,
      animal TEXT NOT NULL,
      price REAL NOT NULL,
      rating REAL NOT NULL,
      description TEXT NOT NULL)`,
    columns: [
      "id",
      "name",
      "category",
      "animal",
      "price",
      "rating",
      "description"
    ],
    text: ["name", "description"],
    filterable: ["id", "name", "category", "animal", "price", "rating"],
    groupable: ["category", "animal"],
    contextColumn: "animal",
    rows: PRODUCTS,
    // The description is long and stays in the store, out of the table.
    display: {
      payloadType: "table",
      mapping: {
        product: "name",
        animal: "animal",
        category: "category",
        price: "price",
        rating: "rating"
      }
    }
  },
  messages: {
    table: "catalog_messages",
    create: `CREATE TABLE IF NOT EXISTS catalog_messages (
      id INTEGER PRIMARY KEY,
      author TEXT NOT NULL,
      channel TEXT NOT NULL,
      text TEXT NOT NULL)`,
    columns: ["id", "author", "channel", "text"],
    text: ["text"],
    filterable: ["id", "author", "channel"],
    groupable: ["author", "channel"],
    rows: MESSAGES,
    display: {
      payloadType: "document",
      mapping: { title: "channel", content: "text", author: "author" }
    }
  }
};

/** The whitelisted spelling of `field` in `allowed`, or an error naming the choices. */
export const column = (
  allowed: readonly string[],
  field: string,
  collection: CollectionName,
  use: string
): string => {
  const found = allowed.find((c) => c === field);
  if (found === undefined) {
    throw new Error(
      `${collection} cannot be ${use} "${field}". Use one of: ${allowed.join(", ")}.`
    );
  }
  return found;
};
