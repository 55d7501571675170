import { engineContract } from "../testing/engine-contract.ts";
import { idempotencyContract } from "../testing/idempotency-contract.ts";
import { createMemoryRepository } from "./memory/memory-repository.ts";

engineContract("the memory repository", async () => createMemoryRepository());
idempotencyContract("the memory repository", async () => createMemoryRepository());
