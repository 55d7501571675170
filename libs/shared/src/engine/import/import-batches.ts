import { countSubmodelElements } from "../../aas/count-elements.ts";
import { eventDraft } from "../commit-runner.ts";
import { insertOps } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import type { Commit, IdentifiableKind } from "../ports/index.ts";
import { splitSubmodel } from "../submodel-json.ts";
import type { ImportCandidate } from "./collect-identifiables.ts";

/**
 * Bounds of one batch: a Redis commit script call of this size runs in tens of milliseconds, so
 * other writers wait no longer than that, and the arguments stay a few megabytes.
 */
const MAX_COMMITS = 1_000;
const MAX_OPS = 5_000;
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * The identifiables of an import, committed many at a time: each is still its own commit (its
 * `id-free` precondition, its seq, its `*.created` event), but a batch goes to the store in one
 * `commitBatch` (one Redis round trip and fsync). One batch is in flight while the next is read and
 * built, so reading the document and writing to the store overlap.
 */
export class ImportBatches {
  private batch: { candidate: ImportCandidate; commit: Commit; elements: number }[] = [];
  private ops = 0;
  private bytes = 0;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: EngineContext,
    private readonly request: { origin?: string; correlationId?: string },
    /** Told of each candidate in order: committed, or its id was taken (written false). */
    private readonly settled: (candidate: ImportCandidate, written: boolean, elements: number) => void,
    /**
     * Awaited after each batch with what it committed, before the next batch is sent: a package
     * claims what it wrote here (packages/package-claims.ts), never what it has not written.
     */
    private readonly committed?: (written: { kind: IdentifiableKind; id: string }[]) => Promise<void>,
  ) {}

  async add(candidate: ImportCandidate): Promise<void> {
    const { kind, id, json } = candidate;
    const { meta, elements } = kind === "submodel" ? splitSubmodel(json) : { meta: json, elements: [] };
    const ops = [
      { op: "put-identifiable" as const, kind, id, json: JSON.stringify(meta) },
      ...insertOps(id, "", elements, false),
    ];
    const commit: Commit = {
      preconditions: [{ on: "id-free", id }],
      ops,
      event: eventDraft(
        {
          kind: `${kind}.created`,
          id,
          origin: this.request.origin ?? "load",
          correlationId: this.request.correlationId,
        },
        json,
        this.ctx.clock.now(),
      ),
    };
    const size = ops.reduce((sum, op) => sum + ("json" in op ? op.json.length : 0) + 64, 0);
    if (this.batch.length > 0 && (this.ops + ops.length > MAX_OPS || this.bytes + size > MAX_BYTES)) await this.flush();
    this.batch.push({
      candidate,
      commit,
      elements: kind === "submodel" ? countSubmodelElements(json.submodelElements) : 0,
    });
    this.ops += ops.length;
    this.bytes += size;
    if (this.batch.length >= MAX_COMMITS) await this.flush();
  }

  /** Waits for the batch in flight, if any, without sending more or throwing (the import failed). */
  async awaitInFlight(): Promise<void> {
    await this.inFlight.catch(() => undefined);
  }

  /** Commits what is left and waits for every batch; throws what a batch threw. */
  async finish(): Promise<void> {
    await this.flush();
    await this.inFlight;
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const sending = this.batch;
    this.batch = [];
    this.ops = 0;
    this.bytes = 0;
    // One batch in flight: wait for the previous one (and fail with it) before sending this one.
    await this.inFlight;
    this.inFlight = this.ctx.commit.many(sending.map((entry) => entry.commit)).then(async (results) => {
      // Every commit of the batch is told, also those after one whose settling threw (a conflict
      // in an all-or-nothing import): the caller must know all that was written, to take it back.
      let failure: unknown;
      results.forEach((result, i) => {
        const entry = sending[i]!;
        try {
          this.settled(entry.candidate, result.ok, entry.elements);
        } catch (error) {
          failure ??= error;
        }
      });
      await this.committed?.(
        sending.filter((_, i) => results[i]!.ok).map(({ candidate }) => ({ kind: candidate.kind, id: candidate.id })),
      );
      if (failure !== undefined) throw failure;
    });
    // Observed at the next flush or at finish; until then it must not count as unhandled.
    this.inFlight.catch(() => undefined);
  }
}
