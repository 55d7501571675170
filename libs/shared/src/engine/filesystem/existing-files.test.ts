import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { copyExistingFiles } from "./existing-files.ts";
import { createFilesystemFileStore } from "./filesystem-file-store.ts";

describe("fileStorage.existingDataPath", () => {
  const root = mkdtempSync(join(tmpdir(), "twinport-existing-"));
  after(() => rmSync(root, { recursive: true, force: true }));

  test("copies the directory's files under the File values their paths spell; the store's own files win; originals untouched", async () => {
    const existing = join(root, "existing");
    mkdirSync(join(existing, "aasx", "files"), { recursive: true });
    writeFileSync(join(existing, "aasx", "files", "Manual.pdf"), "manual");
    writeFileSync(join(existing, "aasx", "files", "kept.txt"), "original");
    writeFileSync(join(existing, "thumbnail.png"), "png");
    writeFileSync(join(root, "outside.txt"), "secret");
    symlinkSync(join(root, "outside.txt"), join(existing, "link.txt"));

    const store = createFilesystemFileStore({ directory: join(root, "store") });
    await store.put("/aasx/files/kept.txt", { contentType: "text/plain", bytes: new TextEncoder().encode("newer") });

    assert.deepEqual(await copyExistingFiles(store, existing), { copied: 2, kept: 1 });
    // Part names are compared without case, as the engine looks them up.
    const manual = await store.get("/aasx/files/manual.pdf");
    assert.equal(manual?.contentType, "application/pdf");
    assert.equal(new TextDecoder().decode(manual?.bytes), "manual");
    assert.equal((await store.get("/thumbnail.png"))?.contentType, "image/png");
    assert.equal(new TextDecoder().decode((await store.get("/aasx/files/kept.txt"))?.bytes), "newer");
    assert.equal(await store.get("/link.txt"), undefined, "a symbolic link is not followed");

    // Deleting through the store never touches the directory it was copied from.
    await store.delete("/aasx/files/manual.pdf");
    assert.equal(readFileSync(join(existing, "aasx", "files", "Manual.pdf"), "utf8"), "manual");
  });

  test("a directory that cannot be read stops the start with the setting's name", async () => {
    const store = createFilesystemFileStore({ directory: join(root, "store2") });
    await assert.rejects(copyExistingFiles(store, join(root, "missing")), /fileStorage\.existingDataPath '.*missing'/);
  });
});
