// Issue 14 item 7 against distributed mode: own structured types decode in fresh clients, both ways.
import { opcuaStructuredTypesSuite } from "./opcua/opcua-structured-types-suite.ts";

opcuaStructuredTypesSuite("distributed");
