import { after } from "node:test";
import { engineContract, idempotencyContract } from "@twinport/shared/testing";
import { startRedis } from "../../../../tests/support/servers.ts";
import { createRedisRepository } from "./redis-repository.ts";

// The engine's contract on the Redis repository: the same commands give the same answers as on memory.
const server = await startRedis();
after(() => server.stop());
let n = 0;

engineContract("the Redis repository", () => createRedisRepository({ url: server.url, keyPrefix: `engine-${++n}` }));
idempotencyContract("the Redis repository", () => createRedisRepository({ url: server.url, keyPrefix: `idempotency-${++n}` }));
