import { after } from "node:test";
import {
  accessContract,
  engineContract,
  fileStoreContract,
  idempotencyContract,
  operationsContract,
  repositoryContract,
} from "@twinport/shared/test-support";
import { startRedisCluster } from "../../../../tests/test-support/redis-cluster.ts";
import { createRedisFileStore } from "./file-store-redis.ts";
import { createRedisRepository } from "./redis-repository.ts";

// The repository contracts the single Redis passes (redis-*.contract.test.ts), on a 3-node Redis
// Cluster started here: the cluster commit (docs/adr/0040) must give the same answers.
const cluster = await startRedisCluster();
after(() => cluster.stop());
let n = 0;
const open = (name: string) => () =>
  createRedisRepository({ url: cluster.nodes[0]!, cluster: { nodes: cluster.nodes }, keyPrefix: `${name}-${++n}` });

repositoryContract("redis cluster", open("contract"));
engineContract("the Redis Cluster repository", open("engine"));
engineContract("the Redis Cluster repository with a record cache", open("engine"), {
  recordCacheSize: 1000,
  renderedSubmodelBytes: 1024 * 1024,
});
idempotencyContract("the Redis Cluster repository", open("idempotency"));
accessContract("the Redis Cluster repository", open("access"));
operationsContract("the Redis Cluster repository", open("operations"));
fileStoreContract("redis cluster", () =>
  createRedisFileStore({
    url: cluster.nodes[0]!,
    cluster: { nodes: cluster.nodes },
    keyPrefix: `files-${++n}`,
    chunkBytes: 64 * 1024,
  }),
);
