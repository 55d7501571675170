import { createMemoryRepository } from "../memory/memory-repository.ts";
import { operationsContract } from "../../test-support/operations-contract.ts";

operationsContract("the memory repository", async () => createMemoryRepository());
