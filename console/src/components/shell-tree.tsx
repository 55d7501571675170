/** The shells, each with its thumbnail, its AASX download and (opened) its submodels. */
import { useEffect, useState } from "preact/hooks";
import { b64, getJson, request, saveResponse } from "../api.ts";
import type { Shell, Submodel } from "../model.ts";
import type { Selection } from "./app.tsx";
import { Thumbnail } from "./thumbnail.tsx";

const AASX = "application/asset-administration-shell-package+xml";

interface Props {
  shells: Shell[];
  selection: Selection | undefined;
  onSelect: (selection: Selection) => void;
  generation: number;
}

export function ShellTree({ shells, selection, onSelect, generation }: Props) {
  if (shells.length === 0) return <p>No shells on this server yet: upload an AASX package.</p>;
  return (
    <ul class="tree" aria-label="Shells">
      {shells.map((shell) => (
        <ShellItem key={shell.id} shell={shell} selection={selection} onSelect={onSelect} generation={generation} />
      ))}
    </ul>
  );
}

function submodelIdsOf(shell: Shell): string[] {
  return (shell.submodels ?? [])
    .map((ref) => ref.keys?.[ref.keys.length - 1]?.value)
    .filter((id): id is string => !!id);
}

function ShellItem({ shell, selection, onSelect, generation }: Omit<Props, "shells"> & { shell: Shell }) {
  const [open, setOpen] = useState(true);
  const [submodels, setSubmodels] = useState<{ id: string; idShort?: string; error?: string }[] | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const name = shell.idShort ?? shell.id;

  useEffect(() => {
    if (!open) return;
    const ids = submodelIdsOf(shell);
    Promise.all(
      ids.map((id) =>
        getJson<Submodel>(`/submodels/${b64(id)}/$metadata`).then(
          (sm) => ({ id, idShort: sm.idShort }),
          (error: Error) => ({ id, error: error.message }),
        ),
      ),
    ).then(setSubmodels);
  }, [open, shell, generation]);

  const download = async () => {
    setMessage("Preparing package…");
    const query = [`aasIds=${b64(shell.id)}`, ...submodelIdsOf(shell).map((id) => `submodelIds=${b64(id)}`)];
    try {
      const response = await request(`/serialization?${query.join("&")}&includeConceptDescriptions=true`, {
        headers: { Accept: AASX },
      });
      await saveResponse(response, `${(shell.idShort ?? "shell").replace(/[^\w.-]+/g, "_")}.aasx`);
      setMessage(undefined);
    } catch (error) {
      setMessage(`Download failed: ${(error as Error).message}`);
    }
  };

  return (
    <li class="shell">
      <div class="shell-head">
        <Thumbnail shell={shell} generation={generation} />
        <div>
          <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? "▾" : "▸"} {name}
          </button>
          <div class="id">{shell.id}</div>
          <button type="button" onClick={download} aria-label={`Download ${name} as AASX`}>
            Download AASX
          </button>
          {message && <div role="status">{message}</div>}
        </div>
      </div>
      {open && submodels && (
        <ul aria-label={`Submodels of ${name}`}>
          {submodels.map((sm) => {
            const selected =
              selection?.view === "submodel" && selection.shellId === shell.id && selection.submodelId === sm.id;
            return (
              <li key={sm.id}>
                {sm.error ? (
                  <span class="error" title={sm.id}>
                    {sm.id}: {sm.error}
                  </span>
                ) : (
                  <button
                    type="button"
                    class={`link${selected ? " selected" : ""}`}
                    title={sm.id}
                    onClick={() => onSelect({ view: "submodel", shellId: shell.id, submodelId: sm.id })}
                  >
                    {sm.idShort ?? sm.id}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </li>
  );
}
