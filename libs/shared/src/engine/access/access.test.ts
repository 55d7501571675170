import { accessContract } from "../../test-support/access-contract.ts";
import { createMemoryRepository } from "../memory/memory-repository.ts";

accessContract("the memory repository", async () => createMemoryRepository());
