import { preconditionsSuite } from "./http/preconditions-suite.ts";

preconditionsSuite("embedded");
