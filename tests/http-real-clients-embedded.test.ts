import { realClientsSuite } from "./http/real-clients-suite.ts";

realClientsSuite("embedded");
