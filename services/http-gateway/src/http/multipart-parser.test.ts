import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { boundaryOf, MultipartError, parseMultipart } from "./multipart-parser.ts";

const CRLF = "\r\n";

describe("multipart parser", () => {
  it("reads every part's name, file name, type and exact bytes, with or without a filename", async () => {
    const binary = Buffer.from([0, 255, 13, 10, 45, 45, 1]);
    const form = new FormData();
    form.append("fileName", "Bedienungsanleitung ü.pdf");
    form.append("file", new Blob([binary], { type: "application/pdf" }), "x.pdf");
    const request = new Request("http://x/", { method: "POST", body: form });
    const boundary = boundaryOf(request.headers.get("content-type")!);
    const parts = parseMultipart(Buffer.from(await request.arrayBuffer()), boundary);
    assert.deepEqual(
      parts.map((p) => [p.name, p.fileName, p.contentType]),
      [
        ["fileName", undefined, undefined],
        ["file", "x.pdf", "application/pdf"],
      ],
    );
    assert.equal(parts[0]!.data.toString(), "Bedienungsanleitung ü.pdf");
    assert.deepEqual(parts[1]!.data, binary);

    const raw = Buffer.concat([
      Buffer.from(
        `--b${CRLF}Content-Disposition: form-data; name="file"${CRLF}Content-Type: application/octet-stream${CRLF}${CRLF}`,
      ),
      binary,
      Buffer.from(
        `${CRLF}--b${CRLF}Content-Disposition: form-data; name="n"; filename*=UTF-8''%C3%BC.txt${CRLF}${CRLF}x${CRLF}--b--${CRLF}`,
      ),
    ]);
    const [file, named] = parseMultipart(raw, boundaryOf('multipart/form-data; boundary="b"'));
    assert.deepEqual(file!.data, binary, "a part without filename keeps its bytes");
    assert.equal(named!.fileName, "ü.txt");
  });

  it("refuses bodies that are not multipart or end early", () => {
    assert.throws(() => boundaryOf("multipart/form-data"), MultipartError);
    assert.throws(() => parseMultipart(Buffer.from("hello"), "b"), MultipartError);
    assert.throws(
      () =>
        parseMultipart(
          Buffer.from(`--b${CRLF}Content-Disposition: form-data; name="f"${CRLF}${CRLF}data without end`),
          "b",
        ),
      /closing boundary/,
    );
    assert.throws(
      () => parseMultipart(Buffer.from(`--b${CRLF}Content-Type: text/plain${CRLF}${CRLF}x${CRLF}--b--`), "b"),
      /no Content-Disposition name/,
    );
  });
});
