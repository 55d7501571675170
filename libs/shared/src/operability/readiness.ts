/** One condition a process needs before it can serve traffic (connected to NATS, mirror built, ...). */
export interface ReadinessCheck {
  name: string;
  ready(): boolean | Promise<boolean>;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, boolean>;
}

/** Runs every check; a check that throws counts as not ready (readiness must never 500). */
export async function evaluateReadiness(checks: readonly ReadinessCheck[]): Promise<ReadinessReport> {
  const results: Record<string, boolean> = {};
  await Promise.all(
    checks.map(async (check) => {
      try {
        results[check.name] = (await check.ready()) === true;
      } catch {
        results[check.name] = false;
      }
    }),
  );
  return { ready: Object.values(results).every(Boolean), checks: results };
}
