import { faultNatsSuite } from "./fault/nats-suite.ts";

faultNatsSuite({ secured: false });
