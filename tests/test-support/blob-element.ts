/** The JSON of a Blob element carrying `bytes` (the large-Blob suite and bench/large-blob.ts write it). */
export function blobElementJson(idShort: string, bytes: Buffer): string {
  return JSON.stringify({
    modelType: "Blob",
    idShort,
    contentType: "application/octet-stream",
    value: bytes.toString("base64"),
  });
}
