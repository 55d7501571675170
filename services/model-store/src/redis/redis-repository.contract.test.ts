import { after } from "node:test";
import { repositoryContract } from "@twinport/shared/test-support";
import { startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisRepository } from "./redis-repository.ts";

// One real redis-server for the whole suite; every test gets an empty keyspace of its own prefix.
const server = await startRedis();
after(() => server.stop());
let n = 0;

repositoryContract("redis", () => createRedisRepository({ url: server.url, keyPrefix: `contract-${++n}` }));
