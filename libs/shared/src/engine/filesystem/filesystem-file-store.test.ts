import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
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

  it("opening the folder removes the temporaries a killed writer left, not a live writer's, and no stored file", async () => {
    const directory = mkdtempSync(join(root, "leftovers-"));
    const first = createFilesystemFileStore({ directory });
    await first.put("/aasx/files/manual.pdf", { contentType: "application/pdf", bytes: Buffer.from("pdf") });
    const [stored] = readdirSync(directory);
    // What a writer killed between writing and renaming leaves: `<name>.<random>.tmp`, an hour old.
    const leftover = join(directory, `${stored!.replace(/\.file$/, "")}.file.0a1b2c3d4e5f.tmp`);
    writeFileSync(leftover, Buffer.alloc(64 * 1024));
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    utimesSync(leftover, hourAgo, hourAgo);
    utimesSync(join(directory, stored!), hourAgo, hourAgo);
    // A replica writing into the same folder right now.
    const live = join(directory, `${"f".repeat(64)}.file.112233445566.tmp`);
    writeFileSync(live, "in progress");

    const second = createFilesystemFileStore({ directory });
    const deadline = Date.now() + 5_000;
    while (readdirSync(directory).includes(leftover.split("/").pop()!) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(readdirSync(directory).sort(), [stored!, live.split("/").pop()!].sort());
    assert.equal(Buffer.from((await second.get("/aasx/files/manual.pdf"))!.bytes).toString(), "pdf");
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
