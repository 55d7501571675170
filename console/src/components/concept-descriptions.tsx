/** The concept descriptions with their IEC 61360 names, units and definitions. */
import { type ConceptDescription, dataSpecificationOf, langText } from "../model.ts";

export function ConceptDescriptions({ items }: { items: ConceptDescription[] }) {
  return (
    <section aria-label="Concept descriptions">
      <h2>Concept descriptions</h2>
      {items.length === 0 ? (
        <p>None.</p>
      ) : (
        <table class="elements">
          <thead>
            <tr>
              <th>idShort</th>
              <th>Identifier</th>
              <th>Preferred name</th>
              <th>Unit</th>
              <th>Data type</th>
              <th>Definition</th>
            </tr>
          </thead>
          <tbody>
            {items.map((cd) => {
              const spec = dataSpecificationOf(cd);
              return (
                <tr key={cd.id}>
                  <th scope="row">{cd.idShort ?? ""}</th>
                  <td class="id">{cd.id}</td>
                  <td>{langText(spec?.preferredName)}</td>
                  <td>{spec?.unit ?? ""}</td>
                  <td>{spec?.dataType ?? ""}</td>
                  <td>{langText(spec?.definition)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
