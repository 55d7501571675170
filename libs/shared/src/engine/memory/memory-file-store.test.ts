import { fileStoreContract } from "../../test-support/file-store-contract.ts";
import { createMemoryFileStore } from "./memory-file-store.ts";

fileStoreContract("memory", async () => createMemoryFileStore());
