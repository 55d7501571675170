import { eventsSuite } from "./http/events-suite.ts";

eventsSuite("distributed");
