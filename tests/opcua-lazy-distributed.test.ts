// Lazy OPC UA nodes (ADR 0036) against distributed mode: redis, nats, model-store, http-gateway, opcua-gateway.
import { opcuaLazySuite } from "./opcua/opcua-lazy-suite.ts";

opcuaLazySuite("distributed");
