import { writeOrderingSuite } from "./http/write-ordering-suite.ts";

writeOrderingSuite("distributed");
