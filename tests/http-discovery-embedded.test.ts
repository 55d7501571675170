import { discoverySuite } from "./http/discovery-suite.ts";

discoverySuite("embedded");
