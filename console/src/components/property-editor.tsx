/**
 * Edits a Property's value: reads the element's ETag when the editor opens, then PATCH …/$value
 * with If-Match, so a change someone else made while the user was typing is not overwritten
 * silently (412 shows instead). The server's Result messages are shown as they are.
 */
import { useEffect, useState } from "preact/hooks";
import { request } from "../api.ts";
import type { Element } from "../model.ts";

interface Props {
  elementPath: string;
  element: Element;
  onDone: (saved: boolean) => void;
}

export function PropertyEditor({ elementPath, element, onDone }: Props) {
  const [draft, setDraft] = useState(element.value === undefined ? "" : String(element.value));
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // The revision the user started from (undefined while it is read).
  const [opened, setOpened] = useState<string | null | undefined>(undefined);
  const readEtag = async () =>
    (await request(elementPath, { headers: { Accept: "application/json" } })).headers.get("ETag");

  useEffect(() => {
    let open = true;
    readEtag().then(
      (etag) => open && setOpened(etag),
      () => open && setOpened(null),
    );
    return () => {
      open = false;
    };
  }, [elementPath]);

  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const etag = opened === undefined || opened === null ? await readEtag() : opened;
      await request(`${elementPath}/$value`, {
        method: "PATCH",
        headers: { "Content-Type": "application/json", ...(etag ? { "If-Match": etag } : {}) },
        // A Property's ValueOnly is its value in the lexical form of its valueType; the server
        // checks it against that type and answers 400 with the reason.
        body: JSON.stringify(draft),
      });
      element.value = draft;
      onDone(true);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="editor"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <input
        aria-label={`New value of ${element.idShort ?? "element"}`}
        value={draft}
        onInput={(event) => setDraft((event.target as HTMLInputElement).value)}
        disabled={busy}
      />{" "}
      <button type="submit" disabled={busy}>
        Save
      </button>{" "}
      <button type="button" onClick={() => onDone(false)} disabled={busy}>
        Cancel
      </button>
      {error && (
        <div class="error" role="alert">
          {error}
        </div>
      )}
    </form>
  );
}
