/**
 * Black-box suite of the files packages bring (docs/adr/0051), embedded and distributed (Redis
 * FileStore in the model-store, two gateways): a package or an AASX import never replaces or
 * deletes bytes someone else stored. Vendors' packages that carry the same generic path each keep
 * their own file; a package that ships a part at another element's upload path neither replaces
 * that upload nor deletes it when it goes; PUT and /reset keep to the same rules.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { writeAasx } from "@twinport/shared";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";

const AASX = "application/asset-administration-shell-package+xml";

/** A package: shell `<id>`, submodel `<id>/sm` whose File Doc names `path`, and that file holding `text`. */
function vendorPackage(id: string, text: string, path = "/aasx/files/manual.pdf"): Buffer {
  return Buffer.from(
    writeAasx({
      environment: {
        assetAdministrationShells: [
          {
            modelType: "AssetAdministrationShell",
            id,
            idShort: "Pump",
            assetInformation: { assetKind: "Instance", globalAssetId: `${id}/asset` },
          },
        ],
        submodels: [
          {
            modelType: "Submodel",
            id: `${id}/sm`,
            submodelElements: [{ modelType: "File", idShort: "Doc", contentType: "application/pdf", value: path }],
          },
        ],
      },
      files: [{ path, contentType: "application/pdf", bytes: Buffer.from(text) }],
    }),
  );
}

function multipart(fileName: string, bytes: Buffer): { body: Buffer; type: string } {
  const boundary = `----twinport${randomBytes(8).toString("hex")}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="fileName"\r\n\r\n${fileName}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

const docPath = (id: string) => `/submodels/${b64(`${id}/sm`)}/submodel-elements/Doc`;

export function packageFilesSuite(mode: Mode): void {
  describe(`files that packages bring, ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let first: HttpClient;
    let last: HttpClient;
    before(async () => {
      sut = await startSystem(mode, { models: [] });
      first = sut.clients[0]!;
      last = sut.clients.at(-1)!;
    });
    after(async () => {
      await sut?.stop();
    });

    const postPackage = async (client: HttpClient, name: string, bytes: Buffer) => {
      const { body, type } = multipart(name, bytes);
      const response = await client.request("POST", "/packages", { body, headers: { "content-type": type } });
      assert.equal(response.status, 201, response.text);
      return response.json().packageId as string;
    };
    /** The attachment's bytes as text, through `client`, or its status when there are none. */
    const attachment = async (client: HttpClient, elementPath: string) => {
      const response = await client.get(`${elementPath}/attachment`);
      return response.status === 200 ? response.text : `(${response.status})`;
    };

    test("two vendors' packages with the same /aasx/files/manual.pdf each keep their own; deleting one leaves the other's", async () => {
      const a = await postPackage(first, "a.aasx", vendorPackage("urn:vendor:a", "vendor A's manual"));
      const b = await postPackage(last, "b.aasx", vendorPackage("urn:vendor:b", "vendor B's manual"));
      for (const client of sut.clients) {
        assert.equal(await attachment(client, docPath("urn:vendor:a")), "vendor A's manual");
        assert.equal(await attachment(client, docPath("urn:vendor:b")), "vendor B's manual");
      }
      assert.equal((await first.request("DELETE", `/packages/${b64(a)}`)).status, 204);
      assert.equal(await attachment(last, docPath("urn:vendor:b")), "vendor B's manual");
      // A PUT that replaces B keeps to the same rules: the new content has its own file again.
      const { body, type } = multipart("b2.aasx", vendorPackage("urn:vendor:b", "vendor B's new manual"));
      const put = await last.request("PUT", `/packages/${b64(b)}`, { body, headers: { "content-type": type } });
      assert.equal(put.status, 204, put.text);
      assert.equal(await attachment(first, docPath("urn:vendor:b")), "vendor B's new manual");
      assert.equal((await first.request("DELETE", `/packages/${b64(b)}`)).status, 204);
    });

    test("a package with a part at another element's upload path neither replaces that upload nor deletes it", async () => {
      const victim = {
        modelType: "Submodel",
        id: "urn:victim",
        submodelElements: [{ modelType: "File", idShort: "Secret", contentType: "text/plain" }],
      };
      assert.equal((await first.request("POST", "/submodels", { body: JSON.stringify(victim) })).status, 201);
      const secret = `/submodels/${b64("urn:victim")}/submodel-elements/Secret`;
      const upload = multipart("secret.txt", Buffer.from("the original"));
      const put = await first.request("PUT", `${secret}/attachment`, {
        body: upload.body,
        headers: { "content-type": upload.type },
      });
      assert.equal(put.status, 204, put.text);
      const uploadPath = (await first.get(secret)).json().value as string;

      const attack = await postPackage(last, "attack.aasx", vendorPackage("urn:attacker", "forged", uploadPath));
      for (const client of sut.clients) {
        assert.equal(await attachment(client, secret), "the original");
        assert.equal(await attachment(client, docPath("urn:attacker")), "forged", "the package serves its own file");
      }
      assert.equal((await last.request("DELETE", `/packages/${b64(attack)}`)).status, 204);
      for (const client of sut.clients) assert.equal(await attachment(client, secret), "the original");

      // Through POST /import the same: the import keeps its own copy, the upload stays.
      const imported = await first.request("POST", "/import", {
        body: vendorPackage("urn:importer", "imported", uploadPath),
        headers: { "content-type": AASX },
      });
      assert.equal(imported.status, 200, imported.text);
      assert.equal(await attachment(last, secret), "the original");
      assert.equal(await attachment(last, docPath("urn:importer")), "imported");
    });

    test("deleting or replacing a package leaves an identifiable it brought that was deleted and created again by someone else", async () => {
      const pkg = await postPackage(first, "c.aasx", vendorPackage("urn:vendor:c", "vendor C's manual"));
      const submodel = `/submodels/${b64("urn:vendor:c/sm")}`;
      // An operator deletes the package's submodel and makes their own under the same id.
      assert.equal((await last.request("DELETE", submodel)).status, 204);
      const own = JSON.stringify({ modelType: "Submodel", id: "urn:vendor:c/sm", idShort: "OperatorsOwn" });
      assert.equal((await last.request("POST", "/submodels", { body: own })).status, 201);
      // Replacing the package: its new content names that id too, which it no longer holds: a 409
      // that changes nothing (the old content, its shell, stays).
      const { body, type } = multipart("c2.aasx", vendorPackage("urn:vendor:c", "vendor C's new manual"));
      const put = await first.request("PUT", `/packages/${b64(pkg)}`, { body, headers: { "content-type": type } });
      assert.equal(put.status, 409, put.text);
      assert.equal((await first.get(`/shells/${b64("urn:vendor:c")}`)).status, 200);
      // Deleting the package takes what it still holds (the shell), not the operator's submodel.
      assert.equal((await first.request("DELETE", `/packages/${b64(pkg)}`)).status, 204);
      assert.equal((await last.get(`/shells/${b64("urn:vendor:c")}`)).status, 404);
      for (const client of sut.clients) {
        const kept = await client.get(submodel);
        assert.equal(kept.status, 200, kept.text);
        assert.equal(kept.json().idShort, "OperatorsOwn");
      }
      assert.equal((await first.request("DELETE", submodel)).status, 204);
    });

    test("reset clears every file and what held them; the same package loads again", async () => {
      await postPackage(first, "a.aasx", vendorPackage("urn:vendor:a", "A"));
      assert.equal((await first.request("DELETE", "/reset")).status, 204);
      const again = await postPackage(last, "a.aasx", vendorPackage("urn:vendor:a", "A again"));
      assert.equal(await attachment(first, docPath("urn:vendor:a")), "A again");
      assert.equal(
        (await first.get(docPath("urn:vendor:a"))).json().value,
        "/aasx/files/manual.pdf",
        "a free path is kept as the package names it",
      );
      assert.equal((await first.request("DELETE", `/packages/${b64(again)}`)).status, 204);
    });
  });
}
