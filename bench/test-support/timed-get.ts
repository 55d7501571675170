import http from "node:http";

export interface TimedResponse {
  /** HTTP status, or undefined when no complete answer came (`failure` says why). */
  status?: number;
  ms: number;
  bytes: number;
  /** The first 64 KB of the body (enough for a page of results or an error's Result body). */
  head: string;
  failure?: string;
}

/**
 * One plain-HTTP GET on a fresh connection, with a deadline for the whole answer (not only for
 * silence: a body that trickles for minutes is a timeout too). Never throws: a refused connection,
 * a reset or the deadline become `failure`, so one bad cell does not end a table.
 */
export function timedGet(
  port: number,
  path: string,
  options: { timeoutMs: number; accept?: string; onChunk?: (chunk: Buffer) => void },
): Promise<TimedResponse> {
  const started = performance.now();
  return new Promise((resolve) => {
    let bytes = 0;
    let status: number | undefined;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let settled = false;
    const finish = (failure?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      const head = Buffer.concat(kept).toString("utf8");
      resolve({ ...(failure ? {} : { status }), ms: performance.now() - started, bytes, head, failure });
    };
    const request = http.get(
      {
        host: "127.0.0.1",
        port,
        path: `/api/v3.0${path}`,
        agent: false,
        headers: { accept: options.accept ?? "application/json" },
      },
      (response) => {
        status = response.statusCode;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          options.onChunk?.(chunk);
          if (keptBytes < 65_536) {
            kept.push(chunk);
            keptBytes += chunk.length;
          }
        });
        response.on("end", () => finish());
        response.on("error", (error) => finish(`${status ?? "no status"}, then ${error.message}`));
        response.on("aborted", () => finish(`${status ?? "no status"}, body cut off`));
      },
    );
    const deadline = setTimeout(() => {
      finish(
        `timeout after ${(options.timeoutMs / 1000).toFixed(0)} s${status ? ` (status ${status}, ${bytes} bytes so far)` : ""}`,
      );
      request.destroy();
    }, options.timeoutMs);
    request.on("error", (error) => finish(error.message));
  });
}
