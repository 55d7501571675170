import { fileStoreContract } from "../../testing/file-store-contract.ts";
import { createMemoryFileStore } from "./memory-file-store.ts";

fileStoreContract("memory", async () => createMemoryFileStore());
