/**
 * The start banner (issue 16): what a person needs after `npm start` in one block — mode, every
 * URL, the model loaded, where certificates and PKI live, whether HTTP is open. On a terminal it is
 * printed as a block; in JSON log mode it is one structured line (`msg: "started"`, `banner: {…}`).
 */

/** What a role reports about itself once started (RunningRole.summary). Every part is optional. */
export interface StartSummary {
  http?: HttpEndpointSummary[];
  opcua?: OpcuaEndpointSummary[];
  /** The model files loaded at start, or why none were. */
  model?: ModelCounts | { kept: string };
  /** Backends this process talks to (display URLs, without credentials). */
  backends?: Record<string, string>;
}

export interface HttpEndpointSummary {
  /** The API base URL, e.g. https://127.0.0.1:8443/api/v3.0. */
  url: string;
  /** Pages and documents the endpoint serves beside the API (OpenAPI, Swagger UI, the web console). */
  extras: { label: string; url: string }[];
  /** The HTTPS certificate: a configured key store, or the self-signed one kept in the state folder. */
  certificate?: string;
}

export interface OpcuaEndpointSummary {
  url: string;
  securityPolicies: string[];
  authentications: string[];
  /** The server's PKI folder (certificate, trusted and rejected client certificates). */
  pki: string;
  userPki: string;
}

export interface ModelCounts {
  files: string[];
  shells: number;
  submodels: number;
  elements: number;
  conceptDescriptions: number;
}

export interface StartBanner extends StartSummary {
  role: string;
  mode: string;
  /** The management port's URL (/health, /ready, /metrics); absent when it is off. */
  management?: string;
  /** `open: …` or `secured: …`, in words. */
  security: string;
  stateDir: string;
  /** Where uploaded files live (the roles that keep them): a folder, Redis, or memory. */
  files?: string;
}

/** The banner as lines for a terminal: a label column and its values. */
export function renderStartBanner(banner: StartBanner): string {
  const rows: [string, string][] = [["Twinport", banner.mode]];
  for (const endpoint of banner.http ?? []) {
    rows.push(["HTTP API", endpoint.url]);
    for (const extra of endpoint.extras) rows.push([`  ${extra.label}`, extra.url]);
  }
  for (const endpoint of banner.opcua ?? []) {
    rows.push(["OPC UA", endpoint.url]);
    rows.push(["  policies", endpoint.securityPolicies.join(", ")]);
    rows.push(["  logins", endpoint.authentications.join(", ")]);
  }
  for (const [name, url] of Object.entries(banner.backends ?? {})) rows.push([name, url]);
  if (banner.management) rows.push(["Management", `${banner.management}  (/health /ready /metrics)`]);
  if (banner.model) rows.push(["Model", modelLine(banner.model)]);
  for (const endpoint of banner.http ?? []) if (endpoint.certificate) rows.push(["HTTPS cert", endpoint.certificate]);
  for (const endpoint of banner.opcua ?? []) {
    rows.push(["OPC UA PKI", endpoint.pki]);
    rows.push(["  user PKI", endpoint.userPki]);
  }
  if (banner.files) rows.push(["Files", banner.files]);
  rows.push(["State", banner.stateDir]);
  rows.push(["Security", banner.security]);
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  const rule = "─".repeat(72);
  return [rule, ...rows.map(([label, value]) => ` ${label.padEnd(width)}${value}`), rule, ""].join("\n");
}

function modelLine(model: ModelCounts | { kept: string }): string {
  if ("kept" in model) return model.kept;
  const n = (count: number, one: string, many = `${one}s`) =>
    `${count.toLocaleString("en")} ${count === 1 ? one : many}`;
  const counts = [
    n(model.shells, "shell"),
    n(model.submodels, "submodel"),
    n(model.elements, "element"),
    n(model.conceptDescriptions, "concept description"),
  ].join(", ");
  return model.files.length > 0 ? `${counts}  (${model.files.join(", ")})` : counts;
}
