import type { ElementJson, ProviderTarget, StoreClient } from "@twinport/shared";

/** Commands of asset connections carry this origin; their events are never forwarded back to an asset. */
export const ASSET_ORIGIN = "asset";

/** How asset connections see the model: the same commands every endpoint sends, with origin "asset". */
export interface ModelPort {
  /** The element as stored (Blob bytes included), or undefined when it does not exist. */
  read(target: ProviderTarget): Promise<ElementJson | undefined>;
  /** PATCH …/$value: one commit, one `element.value-changed` event seen by every endpoint. */
  patchValue(target: ProviderTarget, body: string): Promise<void>;
}

export class ModelWriteError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = "ModelWriteError";
  }
}

export function createModelPort(store: StoreClient): ModelPort {
  return {
    async read({ submodelId, idShortPath }) {
      const reply = await store.execute({
        type: "GetSubmodelElementByPath",
        params: { submodelId, idShortPath, modifiers: { extent: "withBlobValue" } },
        origin: ASSET_ORIGIN,
      });
      if (reply.ok) return reply.value as ElementJson;
      if (reply.error.code === "not-found") return undefined;
      throw new ModelWriteError(`reading ${submodelId} ${idShortPath}: ${reply.error.message}`, reply.error.code);
    },
    async patchValue({ submodelId, idShortPath }, body) {
      const reply = await store.execute({
        type: "PatchSubmodelElementValueByPath",
        params: { submodelId, idShortPath, body },
        origin: ASSET_ORIGIN,
      });
      if (!reply.ok) {
        const details = reply.error.details?.length ? ` (${reply.error.details.join("; ")})` : "";
        throw new ModelWriteError(`${reply.error.message}${details}`, reply.error.code);
      }
    },
  };
}
