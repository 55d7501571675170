import { after } from "node:test";
import { engineContract, idempotencyContract } from "@twinport/shared/test-support";
import { startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisRepository } from "./redis-repository.ts";

// The engine's contract on the Redis repository: the same commands give the same answers as on memory.
const server = await startRedis();
after(() => server.stop());
let n = 0;

engineContract("the Redis repository", () => createRedisRepository({ url: server.url, keyPrefix: `engine-${++n}` }));
// As the model-store runs it: value writes planned from its record cache (record-cache.ts).
engineContract(
  "the Redis repository with a record cache",
  () => createRedisRepository({ url: server.url, keyPrefix: `engine-${++n}` }),
  { recordCacheSize: 1000, renderedSubmodelBytes: 1024 * 1024 },
);
idempotencyContract("the Redis repository", () =>
  createRedisRepository({ url: server.url, keyPrefix: `idempotency-${++n}` }),
);
