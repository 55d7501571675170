import { uploadAccessContract } from "../../test-support/upload-access-contract.ts";
import { createMemoryRepository } from "../memory/memory-repository.ts";

uploadAccessContract("the memory repository", async () => createMemoryRepository());
