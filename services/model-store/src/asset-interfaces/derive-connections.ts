import {
  type AimcProcessorConfig,
  type AssetConnectionConfig,
  ConfigError,
  derivedAssetConnection,
  HTTP_ASSET_CONNECTION_CLASS,
  MQTT_ASSET_CONNECTION_CLASS,
  OPCUA_ASSET_CONNECTION_CLASS,
  providerTarget,
  ReferenceTextError,
} from "@twinport/shared";
import { mainBranchUrl } from "../asset-connections/http-client.ts";
import { type AidInterface, type Outcome, readInterface } from "./aid-interface.ts";
import { type AidDatapoint, readDatapoint } from "./aid-property.ts";
import {
  asReference,
  childOf,
  childrenWith,
  type Json,
  type Reference,
  referenceText,
  resolvePath,
  semanticIdOf,
  startsWith,
} from "./model-tree.ts";
import { AID_SUBMODEL, AIMC_2_SUBMODEL_PREFIX, AIMC_SUBMODEL, SID } from "./semantic-ids.ts";

export type SubmodelRole = "aimc" | "aimc-unsupported" | "aid" | undefined;

/** What a submodel is to the processor, by its semanticId (first key value). */
export function submodelRole(submodel: Json): SubmodelRole {
  const id = semanticIdOf(submodel) ?? "";
  if (AIMC_SUBMODEL.includes(id)) return "aimc";
  if (id.startsWith(AIMC_2_SUBMODEL_PREFIX)) return "aimc-unsupported";
  if (AID_SUBMODEL.includes(id)) return "aid";
  return undefined;
}

export interface DeriveInput {
  aimc: Json;
  /** The submodels of this repository by id (the AIMC's AIDs and the AIMC itself). */
  submodel(id: string): Json | undefined;
  processor: AimcProcessorConfig;
}

export interface DerivedConnections {
  /** FA³ST-shaped connection configs, one per usable MappingConfiguration, validated like hand-written ones. */
  connections: AssetConnectionConfig[];
  /** One sentence per skipped configuration, relation or setting. */
  problems: string[];
  /** Ids of the submodels the result was read from, besides the AIMC: a change of one re-derives it. */
  dependsOn: string[];
}

const MQTT_SCHEMES = new Set(["mqtt:", "mqtts:", "tcp:", "ssl:", "ws:", "wss:"]);

function payloadFormat(contentType: string | undefined): Outcome<"JSON"> {
  // AID leaves contentType optional; JSON is the only payload format our providers read.
  const essence = (contentType ?? "application/json").split(";")[0]!.trim().toLowerCase();
  if (essence === "application/json" || essence.endsWith("+json")) return { ok: true, value: "JSON" };
  if (essence === "application/xml" || essence === "text/xml")
    return { ok: false, problem: `contentType ${contentType}: XML payloads are not supported (only JSON)` };
  return { ok: false, problem: `contentType ${contentType} is not supported (only application/json)` };
}

/** FA³ST 1.3.0's rule, `new URL(href, base)`; the path keeps href when FA³ST main's joining agrees, else the absolute URL. */
function httpPath(base: string, href: string): Outcome<string> {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return { ok: false, problem: `href "${href}" does not resolve against base ${base}` };
  }
  if (!/^https?:$/.test(url.protocol))
    return { ok: false, problem: `href "${href}" resolves to ${url.href}, not an http(s) URL` };
  return { ok: true, value: mainBranchUrl(base, href) === url.href ? href : url.href };
}

/** AID Annex B.2: an href is the topic; absolute ones follow the authority, a leading "/" is written ".//"; "#" as %23. */
function mqttTopic(base: string, href: string): Outcome<string> {
  try {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) {
      const url = new URL(href);
      const server = new URL(base);
      if (url.host !== server.host)
        return { ok: false, problem: `href ${href} names another broker than base ${base}` };
      return { ok: true, value: decodeURIComponent(url.pathname.slice(1)) };
    }
    const topic = decodeURIComponent(href.startsWith(".//") ? href.slice(2) : href);
    return topic === "" ? { ok: false, problem: "href (the topic) is empty" } : { ok: true, value: topic };
  } catch {
    return { ok: false, problem: `href "${href}" is not a usable topic` };
  }
}

/**
 * The node id of an OPC UA form (W3C WoT OPC UA binding, FA³ST main): href "/?id=<nodeId>" (also
 * "?id=…", percent-encoded or not); a bare node id ("ns=2;s=x", "nsu=…;i=1", "i=85") is read as
 * itself, since no other reading of it exists.
 */
function opcuaNodeId(href: string): Outcome<string> {
  const query = /^\/?\?(.*)$/.exec(href.trim());
  let nodeId: string | undefined;
  if (query) {
    const id = query[1]!.split("&").find((part) => part.startsWith("id="));
    if (id) {
      try {
        nodeId = decodeURIComponent(id.slice(3));
      } catch {
        return { ok: false, problem: `href "${href}": the id is not percent-encoded correctly` };
      }
    }
  } else if (/^(?:nsu=[^;]+;|ns=\d+;)?[isgb]=/.test(href.trim())) {
    nodeId = href.trim();
  }
  if (!nodeId)
    return {
      ok: false,
      problem: `href "${href}" names no OPC UA node: write "/?id=<nodeId>", e.g. "/?id=ns=2;s=Machine.Temperature"`,
    };
  return { ok: true, value: nodeId };
}

/** Scheme names of FA³ST main's OPC UA schemes (opcua_channel_sc, opcua_authentication_sc) and the W3C binding's. */
const isOpcuaChannelScheme = (scheme: string) => scheme.includes("channel");
const isOpcuaAuthenticationScheme = (scheme: string) => scheme.includes("auth");

function credentialsFor(
  face: AidInterface,
  processor: AimcProcessorConfig,
  problems: string[],
  where: string,
): { username?: string; password?: string } {
  if (face.schemes.length === 0 || face.schemes.includes("nosec")) return {};
  const opcuaUser = face.protocol === "OPC UA" && face.schemes.some(isOpcuaAuthenticationScheme);
  if (face.protocol === "OPC UA" && !opcuaUser && face.schemes.every(isOpcuaChannelScheme)) return {};
  if (face.schemes.includes("basic") || opcuaUser) {
    const entries = processor.credentials[face.base] ?? [];
    const first = entries.find((entry) => "username" in entry);
    if (first && "username" in first) return { username: first.username, password: first.password };
    // FA³ST main: an OPC UA authentication scheme with CertificateCredentials logs in with the certificate.
    const certificate = entries.find((entry) => "authenticationCertificate" in entry);
    if (opcuaUser && certificate && "authenticationCertificate" in certificate) return {};
    problems.push(
      `${where}: security basic_sc, but no credentials are configured for base "${face.base}" (submodelTemplateProcessors[].credentials): connects without authentication`,
    );
    return {};
  }
  problems.push(
    `${where}: security ${face.schemes.join(", ")} is not supported (nosec and basic are): connects without authentication`,
  );
  return {};
}

interface Provider {
  kind: "valueProviders" | "subscriptionProviders";
  config: Record<string, unknown>;
}

function providerFor(face: AidInterface, point: AidDatapoint, processor: AimcProcessorConfig): Outcome<Provider> {
  if (face.protocol === "OPC UA") {
    // No payload: the node's value is the value, converted to the element's valueType.
    const nodeId = opcuaNodeId(point.href);
    if (!nodeId.ok) return { ok: false, problem: `property ${point.name}: ${nodeId.problem}` };
    return point.observable
      ? {
          ok: true,
          value: {
            kind: "subscriptionProviders",
            config: { nodeId: nodeId.value, interval: processor.subscriptionInterval },
          },
        }
      : { ok: true, value: { kind: "valueProviders", config: { nodeId: nodeId.value, readWriteMode: "READ" } } };
  }
  const format = payloadFormat(point.contentType ?? face.contentType);
  if (!format.ok) return format;
  const query = point.query ? { query: point.query } : {};
  if (face.protocol === "HTTP") {
    // AIMC 1.0 maps asset → AAS only: a form for another method than GET describes a write.
    if (point.methodName !== undefined && point.methodName !== "GET")
      return {
        ok: false,
        problem: `property ${point.name}: htv_methodName ${point.methodName} is not a read (AIMC maps asset values into the model; GET is read)`,
      };
    const path = httpPath(face.base, point.href);
    if (!path.ok) return path;
    const common = { format: format.value, path: path.value, ...query, headers: point.headers };
    return point.observable
      ? {
          ok: true,
          value: { kind: "subscriptionProviders", config: { ...common, interval: processor.subscriptionInterval } },
        }
      : { ok: true, value: { kind: "valueProviders", config: { ...common, readWriteMode: "READ" } } };
  }
  if (point.controlPacket !== undefined && point.controlPacket !== "subscribe")
    return {
      ok: false,
      problem: `property ${point.name}: mqv_controlPacket ${point.controlPacket} is not a subscription`,
    };
  const topic = mqttTopic(face.base, point.href);
  if (!topic.ok) return topic;
  // mqv_qos is checked (0, 1 or 2) but not passed on: the MQTT connection subscribes at QoS 1, as FA³ST's does.
  return {
    ok: true,
    value: { kind: "subscriptionProviders", config: { format: format.value, topic: topic.value, ...query } },
  };
}

function sinkKey(second: Reference | undefined): Outcome<string> {
  if (!second) return { ok: false, problem: "its second (the sink) is not a reference" };
  if (second.keys.some((key) => key.value.includes(", ")))
    return {
      ok: false,
      problem: `the sink ${referenceText(second)} has a key value containing ", ", which a provider key cannot express`,
    };
  const text = referenceText(second);
  try {
    providerTarget(text);
    return { ok: true, value: text };
  } catch (error) {
    if (!(error instanceof ReferenceTextError)) throw error;
    return { ok: false, problem: `the sink ${text} does not name an element: ${error.message}` };
  }
}

/** The key store of the base's CertificateCredentials (FA³ST main), if any: a TLS client certificate or an OPC UA user certificate. */
function certificateFor(face: AidInterface, processor: AimcProcessorConfig): Record<string, unknown> | undefined {
  const entry = (processor.credentials[face.base] ?? []).find((e) => "authenticationCertificate" in e);
  return entry && "authenticationCertificate" in entry ? entry.authenticationCertificate : undefined;
}

const TLS_SCHEMES = new Set(["https:", "mqtts:", "ssl:", "wss:"]);

function connectionFor(
  face: AidInterface,
  processor: AimcProcessorConfig,
  problems: string[],
  where: string,
): Outcome<Record<string, unknown>> {
  let url: URL;
  try {
    url = new URL(face.base);
  } catch {
    return { ok: false, problem: `base "${face.base}" is not an absolute URL` };
  }
  const auth = credentialsFor(face, processor, problems, where);
  const certificate = certificateFor(face, processor);
  // A TLS client certificate is independent of the AID's security scheme (a transport matter).
  const clientCertificate = certificate && TLS_SCHEMES.has(url.protocol) ? { clientCertificate: certificate } : {};
  if (certificate && face.protocol !== "OPC UA" && !TLS_SCHEMES.has(url.protocol))
    problems.push(`${where}: CertificateCredentials for base "${face.base}" are not used: the base is not a TLS URL`);
  if (face.protocol === "HTTP") {
    if (!/^https?:$/.test(url.protocol))
      return { ok: false, problem: `base ${face.base} of an HTTP interface is not an http(s) URL` };
    return {
      ok: true,
      value: {
        "@class": HTTP_ASSET_CONNECTION_CLASS,
        baseUrl: face.base,
        ...auth,
        ...clientCertificate,
        valueProviders: {},
        subscriptionProviders: {},
      },
    };
  }
  if (face.protocol === "OPC UA") {
    if (url.protocol !== "opc.tcp:")
      return { ok: false, problem: `base ${face.base} of an OPC UA interface is not an opc.tcp:// URL` };
    const opcuaUser = face.schemes.some(isOpcuaAuthenticationScheme);
    const user =
      auth.username !== undefined
        ? { userTokenType: "UserName", ...auth }
        : opcuaUser && certificate
          ? { userTokenType: "Certificate", authenticationCertificate: certificate }
          : {};
    const channel = face.channel ?? {};
    const baseDir = processor.opcuaSecurityBaseDir[face.base];
    return {
      ok: true,
      value: {
        "@class": OPCUA_ASSET_CONNECTION_CLASS,
        host: face.base,
        ...channel,
        ...user,
        ...(baseDir === undefined ? {} : { securityBaseDir: baseDir }),
        valueProviders: {},
        subscriptionProviders: {},
      },
    };
  }
  if (!MQTT_SCHEMES.has(url.protocol))
    return {
      ok: false,
      problem: `base ${face.base} of an MQTT interface has none of the schemes ${[...MQTT_SCHEMES].join(" ")}`,
    };
  return {
    ok: true,
    value: {
      "@class": MQTT_ASSET_CONNECTION_CLASS,
      serverUri: face.base,
      ...auth,
      ...clientCertificate,
      subscriptionProviders: {},
    },
  };
}

/**
 * AIMC + the AIDs it references → asset connection configs in FA³ST's shape (docs/reference/aid-aimc/DIGEST.md §5):
 * one connection per MappingConfiguration, a provider per relation keyed by its sink; observable
 * HTTP properties are polled every `subscriptionInterval`, others become read-only value providers;
 * MQTT properties become topic subscriptions; OPC UA properties (node id from the form's href)
 * become monitored items when observable (sampling interval `subscriptionInterval`), else read-only
 * value providers. Pure: everything it reads comes through `input`.
 * Anything unusable is skipped with a sentence in `problems`, never thrown.
 */
export function deriveAssetConnections(input: DeriveInput): DerivedConnections {
  const { aimc, processor } = input;
  const aimcId = String(aimc.id);
  const problems: string[] = [];
  const connections: AssetConnectionConfig[] = [];
  const dependsOn = new Set<string>();
  const sinks = new Map<string, string>();
  const lists = childrenWith(aimc, SID.mappingConfigurations);
  const configurations = (
    lists.length ? lists : [childOf(aimc, [], "MappingConfigurations")].filter((x): x is Json => x !== undefined)
  ).flatMap((list) => childrenWith(list, SID.mappingConfiguration));
  if (configurations.length === 0)
    problems.push("no MappingConfigurations/MappingConfiguration found: nothing to connect");

  configurations.forEach((configuration, index) => {
    const where = `MappingConfigurations[${index}]`;
    const interfaceReference = asReference(childOf(configuration, SID.interfaceReference, "InterfaceReference")?.value);
    if (!interfaceReference) return void problems.push(`${where}: has no InterfaceReference`);
    if (interfaceReference.keys[0]!.value !== aimcId) dependsOn.add(interfaceReference.keys[0]!.value);
    const interfacePath = resolvePath(interfaceReference, input.submodel);
    if (!interfacePath)
      return void problems.push(`${where}: InterfaceReference target not found: ${referenceText(interfaceReference)}`);
    const face = readInterface(interfacePath.at(-1)!, input.submodel);
    const name = `${where} (interface ${String(interfacePath.at(-1)!.idShort)})`;
    if (!face.ok) return void problems.push(`${name}: ${face.problem}`);
    const connection = connectionFor(face.value, processor, problems, name);
    if (!connection.ok) return void problems.push(`${name}: ${connection.problem}`);

    const relations = childrenWith(childOf(configuration, SID.relations, "MappingSourceSinkRelations"), SID.relation);
    relations.forEach((relation, j) => {
      const at = `${name} MappingSourceSinkRelations[${j}]`;
      const first = asReference(relation.first);
      if (!first) return void problems.push(`${at}: its first (the AID property) is not a reference`);
      if (first.keys[0]!.value !== aimcId) dependsOn.add(first.keys[0]!.value);
      if (!startsWith(first, interfaceReference))
        return void problems.push(
          `${at}: first ${referenceText(first)} is not inside the interface ${referenceText(interfaceReference)}`,
        );
      const path = resolvePath(first, input.submodel);
      if (!path) return void problems.push(`${at}: first not found: ${referenceText(first)}`);
      const point = readDatapoint(path);
      if (!point.ok) return void problems.push(`${at}: ${point.problem}`);
      const sink = sinkKey(asReference(relation.second));
      if (!sink.ok) return void problems.push(`${at}: ${sink.problem}`);
      const provider = providerFor(face.value, point.value, processor);
      if (!provider.ok) return void problems.push(`${at}: ${provider.problem}`);
      const clash = sinks.get(`${provider.value.kind} ${sink.value}`);
      if (clash) return void problems.push(`${at}: ${sink.value} is already fed by ${clash}; skipped`);
      sinks.set(`${provider.value.kind} ${sink.value}`, at);
      (connection.value[provider.value.kind] as Record<string, unknown>)[sink.value] = provider.value.config;
    });
    const providers =
      Object.keys(connection.value.valueProviders ?? {}).length +
      Object.keys(connection.value.subscriptionProviders ?? {}).length;
    if (providers === 0) return void problems.push(`${name}: no usable mapping relation: no connection`);
    try {
      connections.push(derivedAssetConnection(connection.value, `AIMC ${aimcId} ${name}`));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.issues);
    }
  });
  return { connections, problems, dependsOn: [...dependsOn] };
}
