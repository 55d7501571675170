import type { ClassedSection } from "./class-names.ts";
import { HTTP_ENDPOINT_CLASS, type HttpEndpointConfig, httpEndpointSchema } from "./http-endpoint.ts";
import { OPCUA_ENDPOINT_CLASS, type OpcUaEndpointConfig, opcuaEndpointSchema } from "./opcua-endpoint.ts";

export type EndpointConfig = HttpEndpointConfig | OpcUaEndpointConfig;
export type EndpointKind = "http" | "opcua";

export const ENDPOINT_CLASS_BY_KIND: Record<EndpointKind, string> = {
  http: HTTP_ENDPOINT_CLASS,
  opcua: OPCUA_ENDPOINT_CLASS,
};

export const endpointSection: ClassedSection = {
  what: "endpoint",
  known: [HTTP_ENDPOINT_CLASS, OPCUA_ENDPOINT_CLASS],
  schemaFor(suffix) {
    switch (suffix) {
      case HTTP_ENDPOINT_CLASS:
        return httpEndpointSchema;
      case OPCUA_ENDPOINT_CLASS:
        return opcuaEndpointSchema;
      default:
        return undefined;
    }
  },
};

/** Which kind an endpoint class (already reduced to its suffix) is. */
export function endpointKindOf(suffix: string): EndpointKind | undefined {
  switch (suffix) {
    case HTTP_ENDPOINT_CLASS:
      return "http";
    case OPCUA_ENDPOINT_CLASS:
      return "opcua";
    default:
      return undefined;
  }
}

export function isHttpEndpoint(endpoint: EndpointConfig): endpoint is HttpEndpointConfig {
  return endpoint["@class"] === HTTP_ENDPOINT_CLASS;
}

export function isOpcUaEndpoint(endpoint: EndpointConfig): endpoint is OpcUaEndpointConfig {
  return endpoint["@class"] === OPCUA_ENDPOINT_CLASS;
}
