import { fuzzRoutes } from "./fuzz.case";

fuzzRoutes((key) => key.includes("/tools/") || key.includes("/runs"), false);
