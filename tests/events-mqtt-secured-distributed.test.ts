import { mqttSecuredSuite } from "./events/mqtt-secured-suite.ts";

mqttSecuredSuite("distributed");
