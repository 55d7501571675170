import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileStoreContract } from "../../test-support/file-store-contract.ts";
import { createFilesystemFileStore } from "./filesystem-file-store.ts";

const contractRoot = mkdtempSync(join(tmpdir(), "twinport-files-contract-"));
const root = mkdtempSync(join(tmpdir(), "twinport-files-"));
let n = 0;

fileStoreContract(
  "filesystem",
  async () => createFilesystemFileStore({ directory: join(contractRoot, `store-${++n}`) }),
  async () => rmSync(contractRoot, { recursive: true, force: true }),
);

describe("filesystem file store", () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it("keeps every file inside its directory, whatever the path says", async () => {
    const parent = mkdtempSync(join(root, "parent-"));
    const directory = join(parent, "files");
    const store = createFilesystemFileStore({ directory });
    await store.put("../escaped.txt", { contentType: "text/plain", bytes: Buffer.from("x") });
    await store.put("/../../escaped.txt", { contentType: "text/plain", bytes: Buffer.from("y") });
    assert.deepEqual(readdirSync(parent), ["files"]);
    assert.equal(readdirSync(directory).length, 2);
    assert.ok(readdirSync(directory).every((name) => /^[0-9a-f]{64}\.file$/.test(name)));
  });

  it("survives a restart: a new store on the same directory sees the files", async () => {
    const directory = join(root, "restart");
    const first = createFilesystemFileStore({ directory });
    await first.put("/aasx/thumbnail.png", { contentType: "image/png", bytes: Buffer.from([137, 80, 78, 71]) });
    await first.close();
    const second = createFilesystemFileStore({ directory });
    assert.deepEqual([...(await second.get("/aasx/thumbnail.png"))!.bytes], [137, 80, 78, 71]);
    assert.deepEqual(await second.list(), [{ path: "/aasx/thumbnail.png", contentType: "image/png", size: 4 }]);
  });
});
