import { discoverySuite } from "./http/discovery-suite.ts";

discoverySuite("distributed");
