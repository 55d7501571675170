/**
 * FA³ST's own variables for its command line (its usage docs): `faaast_config` (-c), `faaast_model`
 * (-m), `faaast_no_validation` (--no-validation) and `faaast_endpoint` (--endpoint), matched without
 * regard to case as FA³ST does. They were ignored without a word, so a FA³ST compose file served an
 * empty model or the default configuration.
 *
 * Read as Twinport's equivalents where those are not given (TWINPORT_CONFIG, TWINPORT_MODEL, the
 * command line wins). `faaast_endpoint` is not taken: FA³ST starts those endpoints in addition to
 * the configured ones, Twinport's --endpoint starts only endpoints of that kind, so a warning says
 * to add the endpoint to the configuration instead.
 */
export interface FaaastEnvironment {
  /** The environment with TWINPORT_CONFIG / TWINPORT_MODEL filled in from FA³ST's names. */
  env: NodeJS.ProcessEnv;
  noValidation: boolean;
  warnings: string[];
}

export function withFaaastEnvironment(env: NodeJS.ProcessEnv): FaaastEnvironment {
  const byName = new Map(Object.entries(env).map(([name, value]) => [name.toLowerCase(), { name, value }]));
  const faaast = (name: string) => byName.get(name);
  const out: NodeJS.ProcessEnv = { ...env };
  const warnings: string[] = [];
  const config = faaast("faaast_config");
  if (config?.value && !env.TWINPORT_CONFIG) out.TWINPORT_CONFIG = config.value;
  const model = faaast("faaast_model");
  if (model?.value && !env.TWINPORT_MODEL) out.TWINPORT_MODEL = model.value;
  const validation = faaast("faaast_no_validation");
  const noValidation = validation?.value !== undefined && validation.value.trim().toLowerCase() === "true";
  const endpoint = faaast("faaast_endpoint");
  if (endpoint?.value)
    warnings.push(
      `${endpoint.name}=${endpoint.value} is ignored: FA³ST starts such endpoints in addition to the configured ones, Twinport's --endpoint starts only endpoints of that kind; add the endpoint to the configuration's "endpoints" instead`,
    );
  return { env: out, noValidation, warnings };
}
