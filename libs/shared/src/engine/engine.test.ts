import { engineContract } from "../test-support/engine-contract.ts";
import { idempotencyContract } from "../test-support/idempotency-contract.ts";
import { createMemoryRepository } from "./memory/memory-repository.ts";

engineContract("the memory repository", async () => createMemoryRepository());
idempotencyContract("the memory repository", async () => createMemoryRepository());
