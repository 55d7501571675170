import {
  asReference,
  childOf,
  childrenOf,
  type Json,
  resolvePath,
  semanticIdOf,
  supplementalSemanticIds,
  textOf,
} from "./model-tree.ts";
import { PROTOCOLS, SECURITY_SCHEMES, SID } from "./semantic-ids.ts";

/** What a connection needs from one AID interface (the Interface SMC). */
export interface AidInterface {
  protocol: "HTTP" | "MQTT" | "OPC UA";
  /** EndpointMetadata/base, verbatim: it also keys the processor's credentials. */
  base: string;
  /** EndpointMetadata/contentType; a form's own contentType overrides it. */
  contentType?: string;
  /** The schemes `security` selects ("nosec", "basic", …). */
  schemes: string[];
  /** OPC UA: the channel security a selected scheme states (securityMode/securityPolicy children). */
  channel?: { securityMode?: string; securityPolicy?: string };
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; problem: string };

function schemeOf(element: Json): string | undefined {
  return (
    textOf(childOf(element, SID.scheme, "scheme"))
      ?.trim()
      .toLowerCase() ?? SECURITY_SCHEMES[semanticIdOf(element) ?? ""]
  );
}

/** A child's text by any of `names` (idShort, case-insensitive): the OPC UA binding's scheme fields. */
function fieldOf(element: Json, names: readonly string[]): string | undefined {
  const child = childrenOf(element).find((c) => names.includes(String(c.idShort ?? "").toLowerCase()));
  const text = child ? textOf(child)?.trim() : undefined;
  // Policies may be written as their URI (http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256).
  return text ? text.slice(text.lastIndexOf("#") + 1) : undefined;
}

/**
 * Reads an Interface SMC. Protocols other than HTTP, MQTT and OPC UA (Modbus, BACnet) are
 * refused with a sentence naming them, as is an interface described only by an external file.
 */
export function readInterface(element: Json, submodel: (id: string) => Json | undefined): Outcome<AidInterface> {
  if (element.modelType !== "SubmodelElementCollection")
    return {
      ok: false,
      problem: `the InterfaceReference names a ${String(element.modelType)}, not an interface (SubmodelElementCollection)`,
    };
  const own = semanticIdOf(element);
  if (own !== undefined && !SID.interface.includes(own as never))
    return {
      ok: false,
      problem: `the InterfaceReference names an element with semanticId ${own}, not an AID interface`,
    };
  const bindings = supplementalSemanticIds(element).filter((id) => id in PROTOCOLS);
  const protocol = bindings.map((id) => PROTOCOLS[id]!)[0];
  if (protocol === undefined) {
    const listed = supplementalSemanticIds(element);
    return {
      ok: false,
      problem: `no protocol binding among its supplementalSemanticIds (${listed.length ? listed.join(", ") : "none"}); known: ${Object.keys(PROTOCOLS).join(", ")}`,
    };
  }
  if (protocol !== "HTTP" && protocol !== "MQTT" && protocol !== "OPC UA")
    return { ok: false, problem: `uses ${protocol}: not supported (HTTP, MQTT and OPC UA are), skipped` };
  const endpoint = childOf(element, SID.endpointMetadata, "EndpointMetadata");
  if (!endpoint) {
    const external = childOf(element, SID.externalDescriptor, "ExternalDescriptor");
    return {
      ok: false,
      problem: external
        ? "described only by an ExternalDescriptor (no EndpointMetadata): cannot connect, skipped"
        : "has no EndpointMetadata",
    };
  }
  const base = textOf(childOf(endpoint, SID.base, "base"))?.trim();
  if (!base) return { ok: false, problem: "EndpointMetadata has no base (td:baseURI)" };
  const contentType = textOf(childOf(endpoint, SID.contentType, "contentType"))?.trim() || undefined;
  const schemes: string[] = [];
  let channel: AidInterface["channel"];
  for (const item of childrenOf(childOf(endpoint, SID.security, "security"))) {
    const reference = asReference(item.value);
    const path = reference ? resolvePath(reference, submodel) : undefined;
    const definition = path?.at(-1);
    const scheme = definition ? schemeOf(definition) : undefined;
    if (scheme) schemes.push(scheme);
    // FA³ST main's opcua_channel_sc: the scheme states the OPC UA security mode and policy.
    if (protocol === "OPC UA" && definition) {
      const securityMode = fieldOf(definition, ["securitymode", "messagesecuritymode"]);
      const securityPolicy = fieldOf(definition, ["securitypolicy"]);
      if (securityMode || securityPolicy)
        channel = { ...(securityMode ? { securityMode } : {}), ...(securityPolicy ? { securityPolicy } : {}) };
    }
  }
  return {
    ok: true,
    value: { protocol, base, ...(contentType ? { contentType } : {}), schemes, ...(channel ? { channel } : {}) },
  };
}
