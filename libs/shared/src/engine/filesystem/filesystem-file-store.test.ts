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

  it("a listing by prefix (which opens only what it answers once paths are known) follows another replica's puts, replacements and deletes", async () => {
    const directory = mkdtempSync(join(root, "shared-"));
    const a = createFilesystemFileStore({ directory });
    const b = createFilesystemFileStore({ directory });
    const text = (value: string) => ({ contentType: "text/plain", bytes: Buffer.from(value) });
    for (let i = 0; i < 200; i++) await a.put(`/aasx/files/f${i}`, text("x"));
    await a.put("package-pending:p1", text("intent"));
    assert.deepEqual(
      (await a.list("package-pending:")).map((info) => info.path),
      ["package-pending:p1"],
    );
    // Again: now only the file it answers is read (the others' paths are known); the answer is the same.
    assert.deepEqual(
      (await a.list("package-pending:")).map((info) => info.path),
      ["package-pending:p1"],
    );
    await b.delete("package-pending:p1");
    await b.put("package-pending:p2", text("intent two"));
    await b.put("/aasx/files/f0", { contentType: "application/pdf", bytes: Buffer.from("longer bytes") });
    assert.deepEqual(
      (await a.list("package-pending:")).map((info) => info.path),
      ["package-pending:p2"],
    );
    assert.deepEqual(
      (await a.list("/aasx/files/f0")).map(({ contentType, size }) => ({ contentType, size })),
      [{ contentType: "application/pdf", size: 12 }],
    );
    assert.equal((await a.list("/aasx/files/")).length, 200);
  });

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
