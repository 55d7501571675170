import type { Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";

/**
 * The gateway's router: Hono's TrieRouter, with the answers for recently requested paths
 * remembered (ADR 0026).
 *
 * Hono's fast RegExpRouter cannot hold the AAS API: it refuses a literal segment beside a
 * parameter (`/submodels/$metadata` next to `/submodels/:submodelIdentifier`), so Hono's
 * SmartRouter falls back to the TrieRouter, which walks its tree for every request (about a tenth
 * of a GET $value's own CPU, profiled). A match depends only on the method and the path, and the
 * routes never change once the app serves, so the same request path gets the same answer: clients
 * read and write the same elements again and again (a dashboard, an asset connection, an OPC UA
 * mirror), and those paths are matched once. Long paths and paths beyond the bound are matched
 * every time, so the memory stays bounded whatever clients send.
 */
export class RememberingRouter<T> implements Router<T> {
  readonly name = "RememberingRouter(TrieRouter)";
  readonly #inner = new TrieRouter<T>();
  readonly #answers = new Map<string, Result<T>>();
  readonly #maxEntries: number;

  constructor(maxEntries = 4096) {
    this.#maxEntries = maxEntries;
  }

  add(method: string, path: string, handler: T): void {
    this.#answers.clear();
    this.#inner.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (path.length > MAX_REMEMBERED_PATH) return this.#inner.match(method, path);
    const key = `${method} ${path}`;
    let answer = this.#answers.get(key);
    if (answer === undefined) {
      answer = this.#inner.match(method, path);
      // Oldest first out: a Map iterates in insertion order.
      if (this.#answers.size >= this.#maxEntries) this.#answers.delete(this.#answers.keys().next().value!);
      this.#answers.set(key, answer);
    }
    return answer;
  }
}

const MAX_REMEMBERED_PATH = 512;
