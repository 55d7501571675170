import { after } from "node:test";
import { accessContract } from "@twinport/shared/test-support";
import { startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisRepository } from "./redis-repository.ts";

// Authorization on the Redis repository: the same rules give the same answers as on memory.
const server = await startRedis();
after(() => server.stop());

accessContract("the Redis repository", () => createRedisRepository({ url: server.url, keyPrefix: "access" }));
