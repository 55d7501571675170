import {
  type CommandParams,
  type CommandType,
  type OutputModifiers,
  type Paged,
  type PageRequest,
  type StoreClient,
  SYSTEM,
} from "@twinport/shared";

type Json = Record<string, unknown>;

/** A read failed: the store's error, kept so the caller can tell "gone" (not-found) from an outage. */
export class StoreReadError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "StoreReadError";
  }
}

const READ_TIMEOUT_MS = 60_000;

export async function read<T extends CommandType>(
  store: StoreClient,
  type: T,
  params: CommandParams<T>,
): Promise<unknown> {
  // The mirror holds everything; what a session may see is decided per session (issue 13).
  const reply = await store.execute(
    { type, params, origin: "opcua", principal: SYSTEM },
    { deadline: Date.now() + READ_TIMEOUT_MS },
  );
  if (!reply.ok) throw new StoreReadError(reply.error.code, `${type}: ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

/** Every item of a paged list query, page by page, handed to `onPage` as it arrives (bounded memory). */
export async function readPages(
  store: StoreClient,
  type: "GetAllAssetAdministrationShells" | "GetAllSubmodels" | "GetAllConceptDescriptions",
  limit: number,
  onPage: (items: Json[]) => void,
  modifiers?: OutputModifiers,
): Promise<void> {
  let cursor: string | undefined;
  do {
    const page: PageRequest = cursor === undefined ? { limit } : { limit, cursor };
    const params = modifiers === undefined ? { page } : { page, modifiers };
    const result = (await read(store, type, params as CommandParams<typeof type>)) as Paged<Json>;
    onPage(result.items);
    cursor = result.cursor;
  } while (cursor !== undefined);
}
