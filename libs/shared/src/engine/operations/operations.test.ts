import { operationsContract } from "../../test-support/operations-contract.ts";
import { createMemoryRepository } from "../memory/memory-repository.ts";

operationsContract("the memory repository", async () => createMemoryRepository());
