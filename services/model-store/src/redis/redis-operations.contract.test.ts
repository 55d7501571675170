import { after } from "node:test";
import { operationsContract } from "@twinport/shared/test-support";
import { startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisRepository } from "./redis-repository.ts";

// The invocation lifecycle with its handles in Redis: the same behaviour as on memory.
const server = await startRedis();
after(() => server.stop());

operationsContract("the Redis repository", () => createRedisRepository({ url: server.url, keyPrefix: "operations" }));
