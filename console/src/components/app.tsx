/**
 * The console: shells and their submodels on the left, the chosen submodel's element tree (or the
 * concept descriptions) on the right, packages and the token at the top. All state lives here in
 * the browser; the server keeps none for the console.
 */
import { useEffect, useState } from "preact/hooks";
import { getAll } from "../api.ts";
import type { ConceptDescription, Shell } from "../model.ts";
import { onTokenChange } from "../token.ts";
import { ConceptDescriptions } from "./concept-descriptions.tsx";
import { Operations } from "./operations.tsx";
import { PackageUpload } from "./package-upload.tsx";
import { ShellTree } from "./shell-tree.tsx";
import { SubmodelView } from "./submodel-view.tsx";
import { TokenForm } from "./token-form.tsx";

export type Selection = { view: "submodel"; shellId: string; submodelId: string } | { view: "concept-descriptions" };

export function App() {
  const [shells, setShells] = useState<Shell[] | undefined>();
  const [conceptDescriptions, setConceptDescriptions] = useState(new Map<string, ConceptDescription>());
  const [error, setError] = useState<string | undefined>();
  const [selection, setSelection] = useState<Selection | undefined>();
  // Bumped when what the server shows us may have changed as a whole: a new token, an upload.
  const [generation, setGeneration] = useState(0);
  const reload = () => setGeneration((g) => g + 1);

  useEffect(() => onTokenChange(reload), []);
  useEffect(() => {
    setError(undefined);
    getAll<Shell>("/shells")
      .then(setShells)
      .catch((e: Error) => setError(`Shells: ${e.message}`));
    getAll<ConceptDescription>("/concept-descriptions")
      .then((cds) => setConceptDescriptions(new Map(cds.map((cd) => [cd.id, cd]))))
      // Units come from concept descriptions; without them the tree still shows the values.
      .catch(() => setConceptDescriptions(new Map()));
  }, [generation]);

  return (
    <div class="layout">
      <header>
        <h1>Twinport console</h1>
        <PackageUpload onUploaded={reload} />
      </header>
      <TokenForm />
      <nav aria-label="Shells">
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {shells === undefined && !error && <p>Loading…</p>}
        {shells && <ShellTree shells={shells} selection={selection} onSelect={setSelection} generation={generation} />}
        <button
          type="button"
          class={`link${selection?.view === "concept-descriptions" ? " selected" : ""}`}
          onClick={() => setSelection({ view: "concept-descriptions" })}
        >
          Concept descriptions
        </button>
      </nav>
      <main>
        {selection?.view === "submodel" && (
          <SubmodelView
            key={`${selection.submodelId}#${generation}`}
            submodelId={selection.submodelId}
            conceptDescriptions={conceptDescriptions}
          />
        )}
        {selection?.view === "concept-descriptions" && (
          <ConceptDescriptions items={[...conceptDescriptions.values()]} />
        )}
        {selection === undefined && <p>Choose a submodel of a shell on the left.</p>}
        <Operations />
      </main>
    </div>
  );
}
