/**
 * Runs tasks with the same key one after another (different keys run concurrently). The engine
 * uses it so concurrent writes to one target inside one model-store process queue up instead of
 * failing each other's compare-and-set; across processes the commit's preconditions still decide.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      // The last task of a key cleans up, so the map holds only keys with work in flight.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  get size(): number {
    return this.tails.size;
  }
}
