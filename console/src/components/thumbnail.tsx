/**
 * A shell's thumbnail (GET …/asset-information/thumbnail), fetched with the token and shown from a
 * blob: URL, since an <img src> cannot send an Authorization header. None stored: no image.
 */
import { useEffect, useState } from "preact/hooks";
import { b64, request } from "../api.ts";
import type { Shell } from "../model.ts";

export function Thumbnail({ shell, generation }: { shell: Shell; generation: number }) {
  const [url, setUrl] = useState<string | undefined>();
  useEffect(() => {
    if (!shell.assetInformation?.defaultThumbnail) return;
    let objectUrl: string | undefined;
    let cancelled = false;
    request(`/shells/${b64(shell.id)}/asset-information/thumbnail`)
      .then((response) => response.blob())
      .then((blob) => {
        if (cancelled) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch(() => setUrl(undefined));
    return () => {
      cancelled = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [shell, generation]);
  if (url === undefined) return <div class="thumbnail empty" aria-hidden="true" />;
  return <img class="thumbnail" src={url} alt={`Thumbnail of ${shell.idShort ?? shell.id}`} />;
}
