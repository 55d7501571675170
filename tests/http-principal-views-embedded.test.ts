import { principalViewsSuite } from "./http/principal-views-suite.ts";

principalViewsSuite("embedded");
