import { fuzzRoutes } from "./fuzz.case";

fuzzRoutes((key) => key.includes("/mcp"), false);
