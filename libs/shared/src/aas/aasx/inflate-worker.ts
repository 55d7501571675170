/**
 * The worker thread that inflates one AASX package (inflate-off-thread.ts): inflating a package
 * of hundreds of MiB takes seconds of CPU, which on the main thread would freeze every request.
 * The parts go back as transferred buffers (no copy); a refused package goes back as its error,
 * and the worker's memory is given back when it exits.
 */
import { parentPort, workerData } from "node:worker_threads";
import { isAasError } from "../aas-error.ts";
import type { AasxLimits } from "./aasx-limits.ts";
import { inflateEntries, type PackagePart } from "./package-parts.ts";
import type { ZipDirectory } from "./zip-directory.ts";

export interface InflateRequest {
  bytes: Uint8Array;
  directory: ZipDirectory;
  limits: AasxLimits;
}

export type InflateReply =
  | { ok: true; parts: PackagePart[] }
  | { ok: false; aas: true; kind: string; message: string; details: string[] }
  | { ok: false; aas: false; message: string };

const { bytes, directory, limits } = workerData as InflateRequest;
let reply: InflateReply;
let transfer: ArrayBuffer[] = [];
try {
  const parts = [...inflateEntries(bytes, directory, limits).values()];
  reply = { ok: true, parts };
  transfer = parts.map((part) => part.bytes.buffer as ArrayBuffer);
} catch (error) {
  reply = isAasError(error)
    ? { ok: false, aas: true, kind: error.kind, message: error.message, details: error.details }
    : { ok: false, aas: false, message: (error as Error).message };
}
parentPort!.postMessage(reply, transfer);
