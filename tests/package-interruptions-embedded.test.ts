import { packageInterruptionsSuite } from "./http/package-interruptions-suite.ts";

packageInterruptionsSuite("embedded");
