// Bounded lazy OPC UA nodes (ADR 0036 "Bounded") against distributed mode: redis, nats, model-store, http-gateway, opcua-gateway.
import { opcuaBoundedSuite } from "./opcua/opcua-bounded-suite.ts";

opcuaBoundedSuite("distributed");
