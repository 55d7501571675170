import { z } from "zod";
import { type AssetConnectionConfig, assetConnectionSection, certificateSchema } from "./asset-connections.ts";
import type { ClassedSection } from "./class-names.ts";
import { ConfigError, formatConfigPath } from "./config-error.ts";

export const AIMC_PROCESSOR_CLASS = "submodeltemplate.aimc.AimcSubmodelTemplateProcessor";

/**
 * A user name and password for one interface base address. FA³ST 1.3.0 knows only this form and
 * uses the first entry of the list for `basic_sc`; its main branch adds an `@class`
 * (BasicCredentials, CertificateCredentials), accepted here.
 */
const basicCredentialsSchema = z.strictObject({
  "@class": z
    .string()
    .refine((value) => value.split(".").at(-1) === "BasicCredentials", {
      error: "expected BasicCredentials here (CertificateCredentials take authenticationCertificate)",
    })
    .optional(),
  username: z.string().min(1),
  password: z.string().default(""),
});

/**
 * FA³ST main's CertificateCredentials: a key store with a key and its certificate. FA³ST uses it
 * for OPC UA user authentication; Twinport also shows it as the TLS client certificate to an
 * https://, mqtts://, ssl:// or wss:// base (issue 18.7).
 */
const certificateCredentialsSchema = z.strictObject({
  "@class": z.string().refine((value) => value.split(".").at(-1) === "CertificateCredentials", {
    error: "expected CertificateCredentials",
  }),
  authenticationCertificate: certificateSchema().refine((value) => value.keyStorePath !== undefined, {
    error: "authenticationCertificate needs a keyStorePath",
  }),
});

const credentialsSchema = z.union([certificateCredentialsSchema, basicCredentialsSchema], {
  error:
    'expected {"username", "password"} (BasicCredentials) or {"@class": "…CertificateCredentials", "authenticationCertificate": {keyStorePath, …}}',
});

export type AimcCredentials = z.output<typeof credentialsSchema>;
export type AimcCertificateCredentials = z.output<typeof certificateCredentialsSchema>;

/**
 * FA³ST's AID/AIMC processor (IDTA 02017 + 02027): turns an AIMC submodel and the AID interfaces it
 * references into asset connections at runtime. Secrets never come from the model: `credentials`
 * is keyed by the exact `base` string of the AID interface.
 */
export const aimcProcessorSchema = z.strictObject({
  "@class": z.literal(AIMC_PROCESSOR_CLASS),
  credentials: z.record(z.string().min(1), z.array(credentialsSchema)).default({}),
  /** FA³ST main: OPC UA server URL (the interface's exact base) → securityBaseDir of the derived connection (PKI, key stores). */
  opcuaSecurityBaseDir: z.record(z.string().min(1), z.string().min(1)).default({}),
  /**
   * Polling period (ms) of the HTTP subscription providers it derives from observable properties
   * (FA³ST main's name). FA³ST passes it to the providers as it is, and its HTTP subscription
   * provider raises anything under 100 ms to 100 ms: so 0 (FA³ST's own test) polls every 100 ms
   * here too (the provider schema applies the same floor), and an OPC UA subscription gets
   * sampling interval 0, OPC UA's "as fast as the server samples".
   */
  subscriptionInterval: z.number().int().min(0).default(1000),
});

export type AimcProcessorConfig = z.output<typeof aimcProcessorSchema>;
export type SubmodelTemplateProcessorConfig = AimcProcessorConfig;

export const submodelTemplateProcessorSection: ClassedSection = {
  what: "submodel template processor",
  known: [AIMC_PROCESSOR_CLASS],
  schemaFor(suffix) {
    return suffix === AIMC_PROCESSOR_CLASS ? aimcProcessorSchema : undefined;
  },
};

/**
 * An asset connection a processor derived, run through the schema hand-written entries take, so
 * both get the same defaults and checks. Throws a ConfigError naming `where` (e.g. the AIMC).
 */
export function derivedAssetConnection(raw: Record<string, unknown>, where: string): AssetConnectionConfig {
  const className = String(raw["@class"]);
  const schema = assetConnectionSection.schemaFor(className);
  if (!schema) throw new ConfigError(`${where}: no asset connection of class ${className}`);
  const result = schema.safeParse(raw);
  if (result.success) return result.data as AssetConnectionConfig;
  throw new ConfigError(
    result.error.issues.map((issue) => `${where}: ${formatConfigPath(issue.path)}: ${issue.message}`),
  );
}
