import { operationsSuite } from "./http/operations-suite.ts";

operationsSuite("distributed");
