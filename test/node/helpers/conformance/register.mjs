// `node --import` this before the conformance suite's CLI (fs-glob.mjs says why).
import { register } from "node:module";

register("./resolve-fs.mjs", import.meta.url);
