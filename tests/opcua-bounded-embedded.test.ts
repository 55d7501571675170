// Bounded lazy OPC UA nodes (ADR 0036 "Bounded") against embedded mode: one twinport process serving HTTPS and OPC UA.
import { opcuaBoundedSuite } from "./opcua/opcua-bounded-suite.ts";

opcuaBoundedSuite("embedded");
