import { faultGatewaysSuite } from "./fault/gateways-suite.ts";

faultGatewaysSuite({ secured: true });
