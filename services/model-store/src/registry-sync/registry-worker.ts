import { backoffDelay, displayUrl } from "@twinport/shared";
import { canonicalJson, type Descriptor } from "./descriptors.ts";
import type { Outcome, RegistryClient } from "./registry-client.ts";

export interface WorkerTiming {
  retryMinDelayMs: number;
  retryMaxDelayMs: number;
}

/** What the registry must hold for an id: a descriptor, or nothing (null). */
type Desired = Descriptor | null;

/**
 * Keeps one registry in step with the desired state, one request at a time.
 *
 * Events only change `desired` (a map write and a wake-up), so nothing here ever delays an API
 * request. The worker sends the *latest* desired state of an id, never an intermediate one, and
 * never two requests for one id at once: that is what "applied in order per id" needs, even when
 * a create, an update and a delete of one id arrive while the registry is down.
 *
 * A registry that fails (network, timeout, 5xx) is retried with capped exponential back-off; when
 * it answers again, everything is sent again (PUT, then POST on 404): it may have restarted empty.
 */
export class RegistryWorker {
  private readonly desired = new Map<string, Desired>();
  /** Canonical JSON the registry acknowledged per id (absent: unknown or not there). */
  private readonly acknowledged = new Map<string, string>();
  /** Canonical JSON the registry refused (4xx): not sent again until it changes. */
  private readonly refused = new Map<string, string>();
  /** Ids whose first request is a POST (start-up, takeover): the registry may or may not have them. */
  private readonly fresh = new Set<string>();
  /** Ids to look at, in arrival order. */
  private readonly pending = new Set<string>();
  private failures = 0;
  private wake: (() => void) | undefined;
  private stopped = false;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private comparing = false;

  constructor(
    readonly client: RegistryClient,
    private readonly timing: WorkerTiming,
    private readonly log: (line: string) => void,
    /** Refusals and failures: the registry does not hold what it should (default: `log`). */
    private readonly warn: (line: string) => void = log,
  ) {}

  private get name(): string {
    // Credentials in the URL (https://user:secret@…) are used, never logged.
    return `${this.client.target.kind === "aas" ? "AAS" : "submodel"} registry ${displayUrl(this.client.target.url)}`;
  }

  /** Desired state of one id; `register` makes the first request a POST (start-up). */
  set(id: string, descriptor: Desired, register = false): void {
    this.desired.set(id, descriptor);
    if (register && descriptor) this.fresh.add(id);
    // Always queued, even when it equals what the registry acknowledged: a request for an older
    // state may be in flight, and run() compares with the acknowledgement after it lands.
    this.pending.add(id);
    this.wake?.();
  }

  /** Ids whose desired state is a descriptor. */
  ids(): string[] {
    return [...this.desired].filter(([, d]) => d !== null).map(([id]) => id);
  }

  status(): { pending: number; failures: number; registered: number } {
    return { pending: this.pending.size, failures: this.failures, registered: this.acknowledged.size };
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops after the request in flight (aborted); pending changes are dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.wake?.();
    await this.loop;
  }

  /**
   * Periodic repair: GET every id the registry acknowledged and send it again when the registry
   * lost or changed it (someone else's cleanup, a restart we did not notice, stale nested copies).
   */
  async compare(): Promise<void> {
    if (this.comparing || this.stopped) return;
    this.comparing = true;
    try {
      for (const [id, desired] of [...this.desired]) {
        if (this.stopped || this.failures > 0) return;
        if (!desired || this.pending.has(id) || this.acknowledged.get(id) !== canonicalJson(desired)) continue;
        const held = await this.client.read(id, this.abort.signal);
        if (!held.ok) {
          if (held.retry) return; // the worker's next request notices the outage and backs off
          continue;
        }
        if (this.desired.get(id) !== desired) continue; // changed meanwhile: already pending
        if (held.descriptor === undefined || canonicalJson(held.descriptor) !== canonicalJson(desired)) {
          this.log(
            `twinport registry-sync: ${this.name} ${held.descriptor === undefined ? "lost" : "holds another version of"} '${id}'; sending it again`,
          );
          this.acknowledged.delete(id);
          this.pending.add(id);
          this.wake?.();
        }
      }
    } finally {
      this.comparing = false;
    }
  }

  /** Orderly shutdown: DELETE every descriptor of ours, a few at a time, until `deadline`. */
  async unregisterAll(deadline: number): Promise<{ deleted: number; left: number }> {
    const ids = [...new Set([...this.acknowledged.keys(), ...this.ids()])];
    const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    let deleted = 0;
    let next = 0;
    const lane = async () => {
      while (next < ids.length && !signal.aborted) {
        const id = ids[next++]!;
        if ((await this.client.unregister(id, signal)).ok) deleted++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, ids.length) }, lane));
    return { deleted, left: ids.length - deleted };
  }

  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const signal = this.abort.signal;
      // Removed again after the pause: a long outage would otherwise pile up one listener per retry.
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const id = this.pending.values().next().value as string | undefined;
      if (id === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      this.pending.delete(id);
      const desired = this.desired.get(id);
      if (desired === undefined) continue;
      const wanted = desired ? canonicalJson(desired) : undefined;
      if (this.refused.get(id) === (wanted ?? "")) continue;
      if (this.acknowledged.get(id) === wanted && !this.fresh.has(id)) continue;
      const outcome: Outcome = !desired
        ? await this.client.unregister(id, this.abort.signal)
        : this.fresh.has(id)
          ? await this.client.register(desired, this.abort.signal)
          : await this.client.update(desired, this.abort.signal);
      if (this.stopped) return;
      if (outcome.ok) {
        this.refused.delete(id);
        this.fresh.delete(id);
        if (this.desired.get(id) === desired) {
          if (desired) this.acknowledged.set(id, wanted!);
          else {
            this.acknowledged.delete(id);
            this.desired.delete(id);
          }
        } else if (desired) this.acknowledged.set(id, wanted!);
        else this.acknowledged.delete(id);
        if (this.failures > 0) this.recovered();
        continue;
      }
      if (!outcome.retry) {
        this.warn(
          `twinport registry-sync: ${this.name} refused ${desired ? "descriptor" : "the removal of"} '${id}': ${outcome.reason}`,
        );
        this.refused.set(id, wanted ?? "");
        this.fresh.delete(id);
        continue;
      }
      // Retry this id after the pause; its desired state may have changed by then, which is fine.
      this.pending.add(id);
      this.failures++;
      const delay = backoffDelay(
        { baseMs: this.timing.retryMinDelayMs, capMs: this.timing.retryMaxDelayMs, jitter: "none" },
        this.failures - 1,
      );
      if (this.failures === 1 || Number.isInteger(Math.log2(this.failures))) {
        this.warn(
          `twinport registry-sync: ${this.name} failed (${outcome.reason}); attempt ${this.failures}, next in ${delay} ms`,
        );
      }
      await this.sleep(delay);
    }
  }

  /** The registry answers again after an outage: it may have lost everything, so send everything. */
  private recovered(): void {
    const failures = this.failures;
    this.failures = 0;
    for (const id of this.ids()) {
      this.acknowledged.delete(id);
      this.pending.add(id);
    }
    this.log(
      `twinport registry-sync: ${this.name} answers again after ${failures} failed attempt(s); re-synchronizing ${this.pending.size} descriptor(s)`,
    );
  }
}
