import { z } from "zod";
import { redisUrlSchema } from "./backend-urls.ts";
import type { ClassedSection } from "./class-names.ts";

export const PERSISTENCE_IN_MEMORY_CLASS = "persistence.memory.PersistenceInMemory";
export const PERSISTENCE_REDIS_CLASS = "persistence.redis.PersistenceRedis";

export const persistenceInMemorySchema = z.strictObject({
  "@class": z.literal(PERSISTENCE_IN_MEMORY_CLASS),
  /** FA³ST's way to name the model to load; `-m` wins over it. */
  initialModelFile: z.string().min(1).optional(),
});

export const persistenceRedisSchema = z.strictObject({
  "@class": z.literal(PERSISTENCE_REDIS_CLASS),
  url: redisUrlSchema.default("redis://127.0.0.1:6379"),
  /**
   * Every key of the store starts with `{<keyPrefix>}` (one hash tag for the whole store); on a
   * cluster, a submodel's elements live under `{<keyPrefix>:<submodel>}` instead (docs/adr/0040).
   */
  keyPrefix: z.string().min(1).default("tp"),
  /**
   * A Redis Cluster instead of one Redis (docs/redis-cluster.md): some of its master nodes as
   * `redis://[user:password@]host:port` (the client learns the others from them); `url` is then
   * not used. Absent: one Redis at `url`, exactly as before.
   */
  cluster: z
    .strictObject({
      nodes: z.array(z.string().regex(/^rediss?:\/\/[^\s/]+$/, "a node is redis://[user:password@]host:port")).min(1),
    })
    .optional(),
});

export type PersistenceInMemoryConfig = z.output<typeof persistenceInMemorySchema>;
export type PersistenceRedisConfig = z.output<typeof persistenceRedisSchema>;
export type PersistenceConfig = PersistenceInMemoryConfig | PersistenceRedisConfig;

export const persistenceSection: ClassedSection = {
  what: "persistence",
  known: [PERSISTENCE_IN_MEMORY_CLASS, PERSISTENCE_REDIS_CLASS],
  unsupported: {
    // docs/faaast-compatibility.md: FA³ST rewrites one model file on every change; Twinport has no
    // file-backed model store, and quietly running on memory would lose what the user meant to keep.
    "persistence.file.PersistenceFile":
      "FA³ST's file persistence has no Twinport counterpart: use persistence.redis.PersistenceRedis to keep changes across restarts (or PersistenceInMemory with initialModelFile to start from the same model file and keep changes only until the process stops)",
  },
  schemaFor(suffix) {
    switch (suffix) {
      case PERSISTENCE_IN_MEMORY_CLASS:
        return persistenceInMemorySchema;
      case PERSISTENCE_REDIS_CLASS:
        return persistenceRedisSchema;
      default:
        return undefined;
    }
  },
};
