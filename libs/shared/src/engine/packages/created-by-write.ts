import type { IdentifiableKind, Repository } from "../ports/index.ts";
import type { PackageIntent } from "./package-intents.ts";

/** Events read at most to find a dead write's creations: past that, the claims alone decide. */
const MAX_EVENTS = 200_000;
const PAGE = 1_000;

/**
 * The identifiables a package write (dead, its intent left behind) created and that are still its
 * own, from the store's event log: the `*.created` events after the intent's `fromSeq` carrying
 * the write's correlationId, less those deleted (or deleted and created by someone else) since.
 * A package claims each batch only after its commit (package-claims.ts), so a crash in between
 * left that batch unclaimed; the log knows it. Empty when the store keeps no log, the log no longer
 * reaches back to `fromSeq` (trimmed), or it is longer than MAX_EVENTS: the claims decide then.
 */
export async function createdByWrite(
  repository: Repository,
  intent: PackageIntent,
): Promise<{ kind: IdentifiableKind; id: string }[]> {
  const from = intent.fromSeq;
  if (from === undefined || intent.correlationId === undefined || !repository.readEvents || !repository.eventLogBounds)
    return [];
  const bounds = await repository.eventLogBounds();
  if (bounds.oldest !== undefined && bounds.oldest > from + 1) return [];
  if (bounds.latest - from > MAX_EVENTS) return [];
  const planned = new Map(intent.identifiables.map((item) => [item.id, item.kind]));
  const ours = new Map<string, IdentifiableKind>();
  for (let after = from; after < bounds.latest; ) {
    const events = await repository.readEvents(after, PAGE);
    if (events.length === 0) break;
    for (const event of events) {
      const kind = planned.get(event.id);
      if (kind === undefined) continue;
      if (event.kind.endsWith(".created") && event.correlationId === intent.correlationId) ours.set(event.id, kind);
      // Deleted since, or created again by someone else: not this write's any more.
      else if (event.kind.endsWith(".created") || event.kind.endsWith(".deleted")) ours.delete(event.id);
    }
    after = events[events.length - 1]!.seq;
  }
  return [...ours].map(([id, kind]) => ({ kind, id }));
}
