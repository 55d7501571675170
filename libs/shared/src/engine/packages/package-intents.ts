import type { FileStore, IdentifiableKind } from "../ports/index.ts";

/**
 * A package post or put under way, written down before its first identifiable is committed
 * (docs/adr/0017, amendment "an interrupted package write is rolled back"). Its content is
 * committed in many batches, then its claims, files and record follow: a write that dies in
 * between (Redis refusing writes, the model-store killed) left content without a package record
 * that nothing ever removed. The intent says what the write may have left, so the write itself,
 * or a sweep after it died (stale-package-intents.ts), can take it back.
 *
 *   package-pending:<packageId>   JSON: PackageIntent, written at the start and once its files are placed
 *   package-beat:<packageId>      the write's heartbeat: a value that changes while it runs
 *
 * The heartbeat is a key of its own because the intent lists every identifiable of the package
 * (100,000 for a large one): rewriting that every few seconds would cost more than the write.
 */
export interface PackageIntent {
  packageId: string;
  /** Unique per write; the package record it ends with carries it (PackageRecord.writeId). */
  writeId: string;
  /** A PUT: the package record in place is the old content's, removed by the write. */
  replaces: boolean;
  /** Which request wrote it (a DELETE is a write that replaces the package with nothing). */
  write?: "post" | "put" | "delete";
  /** Every identifiable the write is about to commit (the first pass knows them all). */
  identifiables: { kind: IdentifiableKind; id: string }[];
  /** The FileStore keys of the files it placed (stored by it, or shared), once placed. */
  fileKeys: string[];
  /**
   * The store's seq before its first commit: its creations are the `*.created` events after it
   * that carry its correlationId (created-by-write.ts), for a sweep after a crash, which knows
   * only the claims otherwise (and a batch's claims follow its commit).
   */
  fromSeq?: number;
  /** Of the command, so a rollback's `deleted` events name the write they undo. */
  origin?: string;
  correlationId?: string;
}

const INTENT_PREFIX = "package-pending:";
const BEAT_PREFIX = "package-beat:";

function intentKey(packageId: string): string {
  return `${INTENT_PREFIX}${packageId}`;
}

function beatKey(packageId: string): string {
  return `${BEAT_PREFIX}${packageId}`;
}

export async function writePackageIntent(files: FileStore, intent: PackageIntent): Promise<void> {
  await files.put(intentKey(intent.packageId), {
    contentType: "application/json",
    bytes: Buffer.from(JSON.stringify(intent), "utf8"),
  });
}

/**
 * The intent of a write that begins: created, never replaced, so of two writes of one package
 * (two PUTs, a PUT and a DELETE) exactly one holds it; false when another write holds it.
 */
export async function createPackageIntent(files: FileStore, intent: PackageIntent): Promise<boolean> {
  return await files.create(intentKey(intent.packageId), {
    contentType: "application/json",
    bytes: Buffer.from(JSON.stringify(intent), "utf8"),
  });
}

export async function readPackageIntent(files: FileStore, packageId: string): Promise<PackageIntent | undefined> {
  const stored = await files.get(intentKey(packageId));
  return stored === undefined ? undefined : (JSON.parse(Buffer.from(stored.bytes).toString("utf8")) as PackageIntent);
}

/** The packageIds of every write under way or left behind. */
export async function pendingPackageIds(files: FileStore): Promise<string[]> {
  return (await files.list(INTENT_PREFIX)).map((info) => info.path.slice(INTENT_PREFIX.length));
}

/** The write is over (completed, or rolled back): its intent and heartbeat go. */
export async function deletePackageIntent(files: FileStore, packageId: string): Promise<void> {
  await files.delete(beatKey(packageId));
  await files.delete(intentKey(packageId));
}

export async function writePackageBeat(files: FileStore, packageId: string, beat: string): Promise<void> {
  await files.put(beatKey(packageId), { contentType: "text/plain", bytes: Buffer.from(beat, "utf8") });
}

/** The last heartbeat; undefined before the first. */
export async function readPackageBeat(files: FileStore, packageId: string): Promise<string | undefined> {
  const stored = await files.get(beatKey(packageId));
  return stored === undefined ? undefined : Buffer.from(stored.bytes).toString("utf8");
}
