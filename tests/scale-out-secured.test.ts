import { scaleOutSuite } from "./fault/scale-out-suite.ts";

scaleOutSuite({ secured: true });
