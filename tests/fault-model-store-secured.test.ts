import { faultModelStoreSuite } from "./fault/model-store-suite.ts";

faultModelStoreSuite({ secured: true });
