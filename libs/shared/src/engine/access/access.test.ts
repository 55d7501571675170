import { accessContract } from "../../testing/access-contract.ts";
import { createMemoryRepository } from "../memory/memory-repository.ts";

accessContract("the memory repository", async () => createMemoryRepository());
