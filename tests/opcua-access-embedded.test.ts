import { opcuaAccessSuite } from "./opcua/opcua-access-suite.ts";

opcuaAccessSuite("embedded");
