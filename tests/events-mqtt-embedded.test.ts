import { mqttEventsSuite } from "./events/mqtt-events-suite.ts";

mqttEventsSuite("embedded");
