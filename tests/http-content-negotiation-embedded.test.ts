import { contentNegotiationSuite } from "./http/content-negotiation-suite.ts";

contentNegotiationSuite("embedded");
