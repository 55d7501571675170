import { type LoadedModels, loadModelFiles, type ModelFile, type ModelLoader } from "@twinport/shared";
import { acquireLease, releaseLease, renewLease } from "./outbox/lease.ts";
import type { RedisRepository } from "./redis/redis-repository.ts";

/** How long the seed lock outlives a replica that died while seeding; renewed while loading. */
const SEED_LOCK_MS = 10_000;
const SEED_LOCK_POLL_MS = 200;

export interface SeedOutcome extends LoadedModels {
  /** An earlier replica died while seeding; this one finished its work. */
  resumed: boolean;
}

/**
 * Seeds the model files into the Redis store once in its life, whatever happens to the replicas:
 *
 * - Under a lock, so two replicas starting together cannot both find the store empty and load it twice.
 * - Two markers: `seed:started` is set before the first write and `seed:complete` after the last.
 *   A replica killed in between leaves "started" without "complete"; the next one to get the lock
 *   loads what is missing (identifiables already written are stepped over), instead of taking the
 *   half-loaded store for live data and serving it as it is.
 * - A store that holds data but no markers was filled another way (an import, an earlier version):
 *   it is live data and stays as it is; so does everything once "complete" is set, even where an
 *   identifiable of the seed was deleted since.
 */
export async function seedModels(
  repository: RedisRepository,
  owner: string,
  engine: ModelLoader,
  models: readonly ModelFile[],
  validate: boolean,
): Promise<SeedOutcome> {
  const redis = repository.redis;
  const lockKey = repository.key("seed:lock");
  const startedKey = repository.key("seed:started");
  const completeKey = repository.key("seed:complete");
  while (!(await acquireLease(redis, lockKey, owner, SEED_LOCK_MS))) {
    await new Promise((resolve) => setTimeout(resolve, SEED_LOCK_POLL_MS));
  }
  const renewer = setInterval(
    () => void renewLease(redis, lockKey, owner, SEED_LOCK_MS).catch(() => undefined),
    SEED_LOCK_MS / 3,
  );
  try {
    const [started, complete] = await redis.mget(startedKey, completeKey);
    const skipped: SeedOutcome = {
      files: [],
      shells: 0,
      submodels: 0,
      conceptDescriptions: 0,
      elements: 0,
      storedFiles: 0,
      skipped: true,
      resumed: false,
    };
    if (complete !== null) return skipped;
    const marker = JSON.stringify({ by: owner, at: new Date().toISOString() });
    if (started === null) await redis.set(startedKey, marker);
    // Checked and loaded all-or-nothing into an empty store (also after a replica died before its
    // first write); the resume path only runs on a store the interrupted seed left half-filled.
    let outcome: SeedOutcome = {
      ...(await loadModelFiles(engine, models, { validate, onlyIfEmpty: true })),
      resumed: false,
    };
    if (outcome.skipped && started !== null)
      outcome = {
        ...(await loadModelFiles(engine, models, { validate, onlyIfEmpty: false, resume: true })),
        resumed: true,
      };
    await redis.set(completeKey, marker);
    return outcome;
  } finally {
    clearInterval(renewer);
    await releaseLease(redis, lockKey, owner).catch(() => undefined);
  }
}
