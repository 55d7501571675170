import { Worker } from "node:worker_threads";
import { AasError, type AasErrorKind } from "../aas-error.ts";
import type { AasxLimits } from "./aasx-limits.ts";
import type { InflateReply, InflateRequest } from "./inflate-worker.ts";
import { checkPackageDirectory, type PackagePart } from "./package-parts.ts";
import { partKey } from "./part-names.ts";
import type { ZipEntry } from "./zip-directory.ts";

/**
 * inflatePackage for a server: the directory checks (entry count, declared sizes, ratios, names),
 * which cost no inflating, run here and refuse a bomb at once; the inflating runs in a worker
 * thread, so the event loop keeps serving while a large package is read. One package at a time:
 * the limits are one budget, and two packages inflating side by side would double what an edge
 * device must hold.
 */
export function inflatePackageOffThread(
  bytes: Uint8Array,
  limits: AasxLimits,
  streamed?: (entry: ZipEntry) => boolean,
): Promise<Map<string, PackagePart>> {
  const checked = checkPackageDirectory(bytes, limits, streamed);
  // A streamed entry is inflated by whoever reads it, as it reads it (zip-entry-data.ts).
  const directory = streamed ? { ...checked, entries: checked.entries.filter((entry) => !streamed(entry)) } : checked;
  const run = queue.then(() => inflateInWorker({ bytes, directory, limits }));
  queue = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

let queue: Promise<void> = Promise.resolve();

// Beside this file, with its extension: the sources (run through tsx, whose loader the worker
// inherits) or tsc's output, where the .ts import became .js.
const WORKER_FILE = new URL(
  `./inflate-worker${import.meta.url.slice(import.meta.url.lastIndexOf("."))}`,
  import.meta.url,
);

function inflateInWorker(request: InflateRequest): Promise<Map<string, PackagePart>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_FILE, { workerData: request });
    let settled = false;
    worker.once("message", (reply: InflateReply) => {
      settled = true;
      // Its job is done: whatever it still holds (a refused package's half) goes with it.
      void worker.terminate();
      if (reply.ok) resolve(new Map(reply.parts.map((part) => [partKey(part.path), part])));
      else if (reply.aas) reject(new AasError(reply.kind as AasErrorKind, reply.message, { details: reply.details }));
      else reject(new Error(reply.message));
    });
    worker.once("error", (error) => {
      settled = true;
      reject(error);
    });
    worker.once("exit", (code) => {
      if (!settled) reject(new Error(`the AASX inflater stopped with code ${code} before answering`));
    });
  });
}
