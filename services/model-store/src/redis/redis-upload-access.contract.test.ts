import { after } from "node:test";
import { uploadAccessContract } from "@twinport/shared/test-support";
import { startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisRepository } from "./redis-repository.ts";

// A list item's upload after its index shifted, on the Redis repository (position tokens in Lua).
const server = await startRedis();
after(() => server.stop());

uploadAccessContract("the Redis repository", () =>
  createRedisRepository({ url: server.url, keyPrefix: "upload-access" }),
);
