import { fuzzSocket } from "./fuzz.case";

fuzzSocket();
