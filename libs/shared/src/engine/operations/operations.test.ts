import { createMemoryRepository } from "../memory/memory-repository.ts";
import { operationsContract } from "../../testing/operations-contract.ts";

operationsContract("the memory repository", async () => createMemoryRepository());
