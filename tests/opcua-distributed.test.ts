// The OPC UA black-box suite against distributed mode: redis, nats, model-store, http-gateway and
// two opcua-gateway replicas as real processes; both replicas must converge.
import { opcuaSuite } from "./opcua/opcua-suite.ts";

opcuaSuite("distributed", { opcuaGateways: 2 });
