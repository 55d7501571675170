/** One element of the tree: name, type, value, unit, and what can be done with it. */
import { useState } from "preact/hooks";
import { b64, pathSegment, request, saveResponse } from "../api.ts";
import { type ConceptDescription, type Element, unitOf, valueText } from "../model.ts";
import { invokeOperation } from "../operations.ts";
import { PropertyEditor } from "./property-editor.tsx";

interface Props {
  submodelId: string;
  element: Element;
  path: string;
  depth: number;
  conceptDescriptions: Map<string, ConceptDescription>;
  onChanged: () => void;
}

export function ElementRow({ submodelId, element, path, depth, conceptDescriptions, onChanged }: Props) {
  const [editing, setEditing] = useState(false);
  const [message, setMessage] = useState<string | undefined>();
  const name = element.idShort ?? path.slice(path.lastIndexOf("["));
  const elementPath = `/submodels/${b64(submodelId)}/submodel-elements/${pathSegment(path)}`;

  const download = async () => {
    try {
      const response = await request(`${elementPath}/attachment`);
      const fileName =
        String(element.value ?? name)
          .split("/")
          .pop() || name;
      await saveResponse(response, fileName);
      setMessage(undefined);
    } catch (error) {
      setMessage(`Download failed: ${(error as Error).message}`);
    }
  };

  return (
    <tr data-path={path}>
      <th scope="row" style={{ paddingLeft: `${0.5 + depth * 1.25}rem` }}>
        {name}
      </th>
      <td class="type">{element.modelType}</td>
      <td class="value">
        {editing ? (
          <PropertyEditor
            elementPath={elementPath}
            element={element}
            onDone={(saved) => {
              setEditing(false);
              if (saved) onChanged();
            }}
          />
        ) : (
          valueText(element)
        )}
        {message && (
          <div class="error" role="alert">
            {message}
          </div>
        )}
      </td>
      <td class="unit">{unitOf(element, conceptDescriptions) ?? ""}</td>
      <td class="actions">
        {element.modelType === "Property" && !editing && (
          <button type="button" aria-label={`Edit ${path}`} onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        {element.modelType === "File" && element.value !== undefined && element.value !== "" && (
          <button type="button" aria-label={`Download ${path}`} onClick={download}>
            Download
          </button>
        )}
        {element.modelType === "Operation" && (
          <button
            type="button"
            aria-label={`Invoke ${path}`}
            onClick={() => invokeOperation(submodelId, path, element)}
          >
            Invoke
          </button>
        )}
      </td>
    </tr>
  );
}
