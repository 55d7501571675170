import { eventsAccessSuite } from "./http/events-access-suite.ts";

eventsAccessSuite("embedded");
