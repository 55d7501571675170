import { opcuaAccessSuite } from "./opcua/opcua-access-suite.ts";

opcuaAccessSuite("distributed");
