import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, it } from "node:test";
import { type FileStore, MAX_FILE_PATH_LENGTH } from "../engine/ports/file-store.ts";

/**
 * The behaviour every FileStore implementation must show (memory, filesystem and Redis run it).
 * `makeStore` must return an EMPTY store each time; the suite closes every store it made.
 */
export function fileStoreContract(
  name: string,
  makeStore: () => Promise<FileStore>,
  cleanup?: () => Promise<void>,
): void {
  const test = (title: string, body: (store: FileStore) => Promise<void>) =>
    it(title, async () => {
      const store = await makeStore();
      try {
        await body(store);
      } finally {
        await store.close();
      }
    });

  describe(`FileStore contract: ${name}`, () => {
    if (cleanup) after(cleanup);

    test("puts and gets a file byte for byte with its content type; a missing path is undefined", async (store) => {
      const bytes = randomBytes(1000);
      await store.put("/aasx/files/manual.pdf", { contentType: "application/pdf", bytes });
      const file = await store.get("/aasx/files/manual.pdf");
      assert.equal(file?.contentType, "application/pdf");
      assert.deepEqual(Buffer.from(file!.bytes), bytes);
      assert.equal(await store.get("/aasx/files/other.pdf"), undefined);
    });

    test("keeps who uploaded a file (an element or a shell); a file put without an owner has none", async (store) => {
      // The orderKey too: it keeps a list item the owner of its upload once its index shifted.
      const owner = { submodelId: "urn:sm:\u0002x", idShortPath: "Docs[0].Manual", orderKey: "000000000000002a" };
      await store.put("/aasx/files/abc/manual.pdf", { contentType: "application/pdf", bytes: randomBytes(10), owner });
      await store.put("/aasx/thumbnails/def/t.png", {
        contentType: "image/png",
        bytes: randomBytes(10),
        owner: { shellId: "urn:aas" },
      });
      await store.put("/aasx/files/plain.pdf", { contentType: 'application/pdf; x="y"', bytes: randomBytes(10) });
      assert.deepEqual((await store.get("/aasx/files/abc/manual.pdf"))?.owner, owner);
      assert.equal((await store.get("/aasx/files/abc/manual.pdf"))?.contentType, "application/pdf");
      assert.deepEqual((await store.get("/aasx/thumbnails/def/t.png"))?.owner, { shellId: "urn:aas" });
      const plain = await store.get("/aasx/files/plain.pdf");
      assert.equal(plain?.owner, undefined);
      assert.equal(plain?.contentType, 'application/pdf; x="y"');
      assert.deepEqual(
        (await store.list("/aasx/files/abc")).map((info) => info.contentType),
        ["application/pdf"],
      );
    });

    test("an empty file is a file", async (store) => {
      await store.put("empty", { contentType: "text/plain", bytes: new Uint8Array(0) });
      const file = await store.get("empty");
      assert.equal(file?.bytes.length, 0);
      assert.deepEqual(await store.list(), [{ path: "empty", contentType: "text/plain", size: 0 }]);
    });

    test("a large file (several MiB) round-trips exactly", async (store) => {
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      await store.put("/big.bin", { contentType: "application/octet-stream", bytes });
      assert.deepEqual(Buffer.from((await store.get("/big.bin"))!.bytes), bytes);
      assert.equal((await store.list())[0]?.size, bytes.length);
    });

    test("put replaces; delete reports whether something was there", async (store) => {
      await store.put("/a", { contentType: "text/plain", bytes: Buffer.from("one") });
      await store.put("/a", { contentType: "text/csv", bytes: Buffer.from("second") });
      const file = await store.get("/a");
      assert.equal(file?.contentType, "text/csv");
      assert.equal(Buffer.from(file!.bytes).toString(), "second");
      assert.equal(await store.delete("/a"), true);
      assert.equal(await store.delete("/a"), false);
      assert.equal(await store.get("/a"), undefined);
    });

    test("create stores only at a free path: a taken path keeps its bytes, type and owner", async (store) => {
      const owner = { submodelId: "urn:sm", idShortPath: "Manual" };
      assert.equal(await store.create("/c", { contentType: "text/plain", bytes: Buffer.from("first"), owner }), true);
      assert.equal(await store.create("/c", { contentType: "text/csv", bytes: Buffer.from("second") }), false);
      const kept = await store.get("/c");
      assert.deepEqual(
        [kept?.contentType, Buffer.from(kept!.bytes).toString(), kept?.owner],
        ["text/plain", "first", owner],
      );
      assert.deepEqual(
        (await store.list()).map((info) => info.path),
        ["/c"],
        "a refused create leaves nothing behind",
      );
      assert.equal(await store.delete("/c"), true);
      assert.equal(await store.create("/c", { contentType: "text/csv", bytes: new Uint8Array(0) }), true);
      assert.equal((await store.get("/c"))?.bytes.length, 0);
    });

    test("of racing creates at one path exactly one wins, and its bytes are what is stored", async (store) => {
      const contenders = Array.from({ length: 8 }, (_, i) => Buffer.alloc(64 * 1024 + i, String(i)));
      const won = await Promise.all(
        contenders.map((bytes) => store.create("/race", { contentType: "application/octet-stream", bytes })),
      );
      assert.equal(won.filter(Boolean).length, 1);
      const stored = Buffer.from((await store.get("/race"))!.bytes);
      assert.ok(stored.equals(contenders[won.indexOf(true)]!), "the winner's bytes");
      assert.equal((await store.list()).length, 1);
    });

    test("hold stores at a free path or shares identical held bytes; the file goes with its last release", async (store) => {
      const manual = { contentType: "application/pdf", bytes: Buffer.from("manual") };
      assert.equal(await store.hold("/m.pdf", "p", manual), "created");
      assert.equal(
        await store.hold("/m.pdf", "q", { contentType: "application/pdf", bytes: Buffer.from("manual") }),
        "shared",
      );
      assert.equal(await store.hold("/m.pdf", "q", manual), "shared", "a second hold of one holder");
      assert.equal(
        await store.hold("/m.pdf", "r", { contentType: "application/pdf", bytes: Buffer.from("other") }),
        "taken",
      );
      assert.equal(Buffer.from((await store.get("/m.pdf"))!.bytes).toString(), "manual");
      assert.equal(await store.release("/m.pdf", "r"), "kept", "a holder it never had changes nothing");
      assert.equal(await store.release("/m.pdf", "p"), "kept");
      assert.ok(await store.get("/m.pdf"), "q still holds it");
      assert.equal(await store.release("/m.pdf", "q"), "deleted");
      assert.equal(await store.get("/m.pdf"), undefined);
      assert.deepEqual(await store.list(), [], "nothing left behind");
      assert.equal(await store.release("/m.pdf", "q"), "absent");
    });

    test("hold leaves a file stored without holders alone; put and delete drop the holders", async (store) => {
      const bytes = Buffer.from("same");
      await store.put("/plain", { contentType: "text/plain", bytes });
      await store.create("/upload", { contentType: "text/plain", bytes, owner: { shellId: "urn:aas" } });
      assert.equal(await store.hold("/plain", "p", { contentType: "text/plain", bytes }), "taken");
      assert.equal(await store.hold("/upload", "p", { contentType: "text/plain", bytes }), "taken");
      assert.equal(await store.release("/plain", "p"), "unheld");
      assert.equal(await store.release("/none", "p"), "absent");
      assert.ok(await store.get("/plain"), "an unheld file stays");
      assert.equal(await store.hold("/held", "p", { contentType: "text/plain", bytes }), "created");
      await store.put("/held", { contentType: "text/plain", bytes });
      assert.equal(await store.hold("/held", "q", { contentType: "text/plain", bytes }), "taken", "put: not held");
      assert.equal(await store.release("/held", "p"), "unheld");
      assert.equal(await store.delete("/held"), true);
      assert.equal(await store.hold("/held", "q", { contentType: "text/plain", bytes }), "created");
      assert.equal(await store.delete("/held"), true);
      assert.equal(await store.create("/held", { contentType: "text/plain", bytes }), true);
      assert.equal(await store.release("/held", "q"), "unheld", "delete dropped q's hold");
      await store.clear();
      assert.equal(await store.hold("/m", "p", { contentType: "text/plain", bytes }), "created", "clear drops holders");
    });

    test("racing holds and releases of one file: deleted exactly once, with its last holder, never under a new one", async (store) => {
      const file = () => ({ contentType: "application/pdf", bytes: Buffer.alloc(70 * 1024, "m") });
      for (const holder of ["a", "b", "c", "d"]) assert.notEqual(await store.hold("/m.pdf", holder, file()), "taken");
      const released = await Promise.all(["a", "b", "c", "d"].map((holder) => store.release("/m.pdf", holder)));
      assert.deepEqual(released.filter((outcome) => outcome === "deleted").length, 1);
      assert.equal(await store.get("/m.pdf"), undefined, "four holders gone at once: no file left behind");
      for (let round = 0; round < 5; round++) {
        for (const holder of ["a", "b"]) await store.hold("/m.pdf", holder, file());
        // Old holders let go while new ones take hold: whoever comes last decides, and a new holder
        // always finds the file stored after its hold.
        const holds = ["c", "d"].map((holder) => store.hold("/m.pdf", holder, file()));
        const releases = ["a", "b"].map((holder) => store.release("/m.pdf", holder));
        const outcomes = await Promise.all([...holds, ...releases]);
        assert.ok(
          outcomes.slice(0, 2).every((outcome) => outcome !== "taken"),
          JSON.stringify(outcomes),
        );
        assert.ok(await store.get("/m.pdf"), "held by c and d");
        assert.equal(await store.release("/m.pdf", "c"), "kept");
        assert.equal(await store.release("/m.pdf", "d"), "deleted");
        assert.equal(await store.get("/m.pdf"), undefined);
      }
    });

    test("a prefix is literal: characters a pattern would read (* ? [ ] \\) match only themselves", async (store) => {
      const paths = ["p*[x]?\\1", "p*[x]?\\2", "p*x", "pa[x]?\\1", "p*[y]?\\1", "p"];
      for (const path of paths) await store.put(path, { contentType: "text/plain", bytes: Buffer.from(path) });
      assert.deepEqual(
        (await store.list("p*[x]?\\")).map((info) => info.path),
        ["p*[x]?\\1", "p*[x]?\\2"],
      );
      assert.deepEqual(
        (await store.list("p*")).map((info) => info.path),
        ["p*[x]?\\1", "p*[x]?\\2", "p*[y]?\\1", "p*x"],
      );
    });

    test("lists by prefix, ordered by path, with sizes; clear empties the store", async (store) => {
      for (const path of ["/b/2", "/a/1", "/b/1", "package:x"])
        await store.put(path, { contentType: "text/plain", bytes: Buffer.from(path) });
      assert.deepEqual(
        (await store.list("/b/")).map((info) => info.path),
        ["/b/1", "/b/2"],
      );
      assert.deepEqual(await store.list("/a"), [{ path: "/a/1", contentType: "text/plain", size: 4 }]);
      assert.deepEqual(
        (await store.list()).map((info) => info.path),
        ["/a/1", "/b/1", "/b/2", "package:x"],
      );
      await store.clear();
      assert.deepEqual(await store.list(), []);
      assert.equal(await store.get("/a/1"), undefined);
    });

    test("hostile paths are plain keys: each is its own file and nothing else is touched", async (store) => {
      const paths = [
        "../../etc/passwd",
        "/aasx/../../x",
        "..",
        "C:\\Windows\\system.ini",
        "a\u0000b",
        "ümlaut/文件.pdf",
        "%2e%2e/x",
        "x".repeat(MAX_FILE_PATH_LENGTH),
      ];
      for (const [i, path] of paths.entries())
        await store.put(path, { contentType: "text/plain", bytes: Buffer.from(String(i)) });
      for (const [i, path] of paths.entries())
        assert.equal(Buffer.from((await store.get(path))!.bytes).toString(), String(i), path.slice(0, 40));
      assert.deepEqual((await store.list()).map((info) => info.path).sort(), [...paths].sort());
      assert.equal(await store.get("/etc/passwd"), undefined);
    });

    test("an empty or overlong path is refused", async (store) => {
      await assert.rejects(store.put("", { contentType: "text/plain", bytes: new Uint8Array(1) }), TypeError);
      await assert.rejects(
        store.put("x".repeat(MAX_FILE_PATH_LENGTH + 1), { contentType: "text/plain", bytes: new Uint8Array(1) }),
        TypeError,
      );
      await assert.rejects(store.get(""), TypeError);
    });

    test("never shares buffers with its callers", async (store) => {
      const bytes = new Uint8Array([1, 2, 3]);
      await store.put("/f", { contentType: "application/octet-stream", bytes });
      bytes[0] = 9;
      const first = await store.get("/f");
      first!.bytes[1] = 9;
      assert.deepEqual([...(await store.get("/f"))!.bytes], [1, 2, 3]);
    });

    test("a reader during a replacement sees the old file or the new one, never a mix", async (store) => {
      const size = 2 * 1024 * 1024 + 3;
      const old = Buffer.alloc(size, "a");
      const replacement = Buffer.alloc(size, "b");
      await store.put("/swap", { contentType: "text/plain", bytes: old });
      const reads: Promise<void>[] = [];
      const writing = store.put("/swap", { contentType: "text/csv", bytes: replacement });
      for (let i = 0; i < 8; i++) {
        reads.push(
          store.get("/swap").then((file) => {
            assert.ok(file, "the file never disappears while it is replaced");
            const text = Buffer.from(file.bytes);
            const whole = text.equals(old) ? "text/plain" : text.equals(replacement) ? "text/csv" : "mixed";
            assert.equal(file.contentType, whole, "bytes and content type belong to one version");
          }),
        );
      }
      await Promise.all([writing, ...reads]);
      assert.equal((await store.get("/swap"))?.contentType, "text/csv");
    });
  });
}
