import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { encodeBase64Url } from "@twinport/shared";
import type { Descriptor } from "./descriptors.ts";

/** Which registry API: the AAS Registry's shell descriptors or the Submodel Registry's submodel descriptors. */
export type DescriptorKind = "aas" | "submodel";

export interface RegistryTarget {
  /** The configured URL, for log lines. */
  url: string;
  /** API root ending in "/" (registryApiRoot). */
  apiRoot: string;
  kind: DescriptorKind;
  /** Sent with every request (auth). */
  headers: Record<string, string>;
}

/**
 * ok, or failed; `retry` for what may heal by itself (network, timeout, 5xx, 429) or concerns the
 * whole registry rather than one descriptor (401, 403, 407: credentials or a proxy, fixed there and
 * then every descriptor is sent again), not for a refusal of one descriptor.
 */
export type Outcome = { ok: true } | { ok: false; retry: boolean; reason: string };

const COLLECTION: Record<DescriptorKind, string> = { aas: "shell-descriptors", submodel: "submodel-descriptors" };

interface Answer {
  status: number;
  text: string;
}

/** Enough of a registry's answer for a descriptor or a log line; a huge body is cut, not buffered. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * One request with node:http(s) rather than fetch: fetch refuses "bad ports" (6000, 6665-6669,
 * 10080, …) that a registry may well use, and follows redirects with our credentials header.
 */
function request(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) },
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let capped = false;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          chunks.push(chunk);
          if (size > MAX_ANSWER_BYTES && !capped) {
            capped = true;
            res.destroy();
          }
        });
        const done = () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") });
        res.on("end", done);
        // Closed before the end: complete enough when we cut it, a failure otherwise (abort, reset).
        res.on("close", () =>
          capped
            ? done()
            : res.complete
              ? undefined
              : reject(new Error("the connection closed in the middle of the answer")),
        );
        res.on("error", (error) => (capped ? done() : reject(error)));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The registry's `Result.messages[].text`, so a 400 says what the registry disliked. */
function reasonOf(method: string, answer: Answer): string {
  let detail = answer.text.slice(0, 300);
  try {
    const messages = (JSON.parse(answer.text) as { messages?: { text?: unknown }[] }).messages;
    if (Array.isArray(messages) && messages.length > 0)
      detail = messages
        .map((m) => String(m?.text ?? ""))
        .join("; ")
        .slice(0, 500);
  } catch {
    // not a Result body: keep the start of the text
  }
  return `${method} answered ${answer.status}${detail ? `: ${detail}` : ""}`;
}

function failed(method: string, answer: Answer): Outcome {
  return {
    ok: false,
    retry: answer.status >= 500 || [401, 403, 407, 408, 429].includes(answer.status),
    reason: reasonOf(method, answer),
  };
}

/**
 * The registry calls with the upsert rules of docs/reference/aas-api-v3.0/REGISTRY.md §3: POST → 409 → PUT, PUT → 404 → POST,
 * DELETE → 404 = done. Paths are relative to the API root, so a path in the registry URL survives.
 */
export class RegistryClient {
  constructor(
    readonly target: RegistryTarget,
    private readonly timeoutMs: number,
  ) {}

  private itemPath(id: string): string {
    return `${COLLECTION[this.target.kind]}/${encodeBase64Url(id)}`;
  }

  private async send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer> {
    const headers = {
      accept: "application/json",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...this.target.headers,
    };
    // Our own timer and controller, not AbortSignal.any([AbortSignal.timeout(), signal]): on Node 20
    // the timeout inside such a composite can be garbage-collected before it fires
    // (nodejs/node#57736), and a request to a registry that never answers then never ends: the
    // worker hung for good once in a test run.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException(`no answer within ${this.timeoutMs} ms`, "TimeoutError")),
      this.timeoutMs,
    );
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await request(
        new URL(path, this.target.apiRoot),
        method,
        headers,
        body === undefined ? undefined : JSON.stringify(body),
        controller.signal,
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Network errors and timeouts become retryable outcomes; nothing throws. */
  private async attempt(run: () => Promise<Outcome>): Promise<Outcome> {
    try {
      return await run();
    } catch (error) {
      const e = error as Error & { code?: string; cause?: { name?: string } };
      const timedOut = e.name === "TimeoutError" || e.cause?.name === "TimeoutError";
      const reason = timedOut
        ? `no answer within ${this.timeoutMs} ms`
        : e.name === "AbortError"
          ? "aborted"
          : (e.code ?? e.message);
      return { ok: false, retry: true, reason };
    }
  }

  /** Start-up: the registry may hold a stale copy from an unclean stop, hence POST first and PUT on 409. */
  register(descriptor: Descriptor, signal?: AbortSignal): Promise<Outcome> {
    return this.attempt(async () => {
      const posted = await this.send("POST", COLLECTION[this.target.kind], descriptor, signal);
      if (posted.status >= 200 && posted.status < 300) return { ok: true };
      if (posted.status !== 409) return failed("POST", posted);
      const put = await this.send("PUT", this.itemPath(descriptor.id), descriptor, signal);
      return put.status >= 200 && put.status < 300 ? { ok: true } : failed("PUT after 409", put);
    });
  }

  /** A change: PUT first (the usual case), POST when the registry does not know the id (lost, or new). */
  update(descriptor: Descriptor, signal?: AbortSignal): Promise<Outcome> {
    return this.attempt(async () => {
      const put = await this.send("PUT", this.itemPath(descriptor.id), descriptor, signal);
      if (put.status >= 200 && put.status < 300) return { ok: true };
      if (put.status !== 404) return failed("PUT", put);
      const posted = await this.send("POST", COLLECTION[this.target.kind], descriptor, signal);
      return posted.status >= 200 && posted.status < 300 ? { ok: true } : failed("POST after 404", posted);
    });
  }

  /** Built from the id alone: the element is already gone from the store when this runs. */
  unregister(id: string, signal?: AbortSignal): Promise<Outcome> {
    return this.attempt(async () => {
      const answer = await this.send("DELETE", this.itemPath(id), undefined, signal);
      return (answer.status >= 200 && answer.status < 300) || answer.status === 404
        ? { ok: true }
        : failed("DELETE", answer);
    });
  }

  /** What the registry holds for an id (undefined: nothing), for the periodic comparison. */
  async read(
    id: string,
    signal?: AbortSignal,
  ): Promise<{ ok: true; descriptor: unknown } | Extract<Outcome, { ok: false }>> {
    let descriptor: unknown;
    const outcome = await this.attempt(async () => {
      const answer = await this.send("GET", this.itemPath(id), undefined, signal);
      if (answer.status === 404) return { ok: true };
      if (answer.status !== 200) return failed("GET", answer);
      try {
        descriptor = JSON.parse(answer.text);
      } catch {
        return { ok: false, retry: false, reason: "GET answered 200 with a body that is not JSON" };
      }
      return { ok: true };
    });
    return outcome.ok ? { ok: true, descriptor } : outcome;
  }
}
