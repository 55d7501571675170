// The OPC UA black-box suite against embedded mode: one twinport process serving HTTPS and OPC UA.
import { opcuaSuite } from "./opcua/opcua-suite.ts";

opcuaSuite("embedded");
