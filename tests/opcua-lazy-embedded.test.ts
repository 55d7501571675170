// Lazy OPC UA nodes (ADR 0036) against embedded mode: one twinport process serving HTTPS and OPC UA.
import { opcuaLazySuite } from "./opcua/opcua-lazy-suite.ts";

opcuaLazySuite("embedded");
