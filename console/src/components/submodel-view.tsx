/** One submodel's element tree with values and units, kept current by live.ts. */
import { useEffect, useState } from "preact/hooks";
import { b64, getJson } from "../api.ts";
import { followSubmodel, type LiveMode, POLL_INTERVAL_MS } from "../live.ts";
import { type ConceptDescription, childPath, childrenOf, type Element, type Submodel } from "../model.ts";
import { applyChildren, applyValueOnly, elementAt } from "../value-only.ts";
import { ElementRow } from "./element-row.tsx";

const LIVE_TEXT: Record<LiveMode, string> = {
  events: "Live: change events",
  polling: `Live: reading values every ${POLL_INTERVAL_MS / 1000} s`,
  connecting: "Live: connecting…",
};

interface Props {
  submodelId: string;
  conceptDescriptions: Map<string, ConceptDescription>;
}

export function SubmodelView({ submodelId, conceptDescriptions }: Props) {
  const [submodel, setSubmodel] = useState<Submodel | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [live, setLive] = useState<LiveMode>("connecting");
  // The tree is changed in place by live values; this re-renders it.
  const [, setTick] = useState(0);
  const [reads, setReads] = useState(0);

  useEffect(() => {
    getJson<Submodel>(`/submodels/${b64(submodelId)}`)
      .then((sm) => {
        setSubmodel(sm);
        setError(undefined);
      })
      .catch((e: Error) => setError(e.message));
  }, [submodelId, reads]);

  useEffect(() => {
    if (submodel === undefined) return;
    const rerender = () => setTick((t) => t + 1);
    return followSubmodel(submodelId, {
      onValue(idShortPath, value) {
        const element = elementAt(submodel.submodelElements ?? [], idShortPath);
        if (element) applyValueOnly(element, value);
        rerender();
      },
      onSubmodelValue(value) {
        applyChildren(submodel.submodelElements ?? [], value);
        rerender();
      },
      onReload: () => setReads((r) => r + 1),
      onMode: setLive,
    });
  }, [submodel, submodelId]);

  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (submodel === undefined) return <p>Loading…</p>;
  const rows: preact.JSX.Element[] = [];
  const walk = (elements: Element[], parent: Element | undefined, parentPath: string, depth: number) =>
    elements.forEach((element, index) => {
      const path = childPath(parentPath, parent, element, index);
      rows.push(
        <ElementRow
          key={path}
          submodelId={submodelId}
          element={element}
          path={path}
          depth={depth}
          conceptDescriptions={conceptDescriptions}
          onChanged={() => setReads((r) => r + 1)}
        />,
      );
      walk(childrenOf(element), element, path, depth + 1);
    });
  walk(submodel.submodelElements ?? [], undefined, "", 0);

  return (
    <section aria-label={`Submodel ${submodel.idShort ?? submodel.id}`}>
      <h2>{submodel.idShort ?? submodel.id}</h2>
      <div class="id">{submodel.id}</div>
      <div class="live" role="status" data-live={live}>
        {LIVE_TEXT[live]}
      </div>
      <table class="elements">
        <thead>
          <tr>
            <th>Element</th>
            <th>Type</th>
            <th>Value</th>
            <th>Unit</th>
            <th />
          </tr>
        </thead>
        <tbody>{rows}</tbody>
      </table>
    </section>
  );
}
