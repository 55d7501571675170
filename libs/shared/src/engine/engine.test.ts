import { engineContract } from "../testing/engine-contract.ts";
import { createMemoryRepository } from "./memory/memory-repository.ts";

engineContract("the memory repository", async () => createMemoryRepository());
