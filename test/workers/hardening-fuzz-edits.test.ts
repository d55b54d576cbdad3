import { fuzzRoutes } from "./fuzz.case";

// Two routes per file: the pool slows down as one file runs on.
fuzzRoutes(
  (key) => key.startsWith("POST") && key.includes("/environment/"),
  false
);
fuzzRoutes(
  (key) => key.endsWith("/environment/{tool}/{name}") && key.startsWith("PUT"),
  false
);
