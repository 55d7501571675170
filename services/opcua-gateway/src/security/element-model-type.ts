import { type BaseNode, NodeClass, NodeId, NodeIdType, type UAObject } from "node-opcua";
import { elementNodeId } from "../address-space/node-ids.ts";

/**
 * The AAS modelType of the element `path` of submodel `submodelId`, from its node's type definition
 * (element-specs.ts gives every element an `AAS<modelType>Type`), or undefined while the node is not
 * built. The rules need it only for an element on the way to a grant (node-access.ts): only a
 * container that can hold the granted element is shown there. A node asked about is built, and
 * so is its element, whose node is built with it.
 */
export function elementModelType(near: BaseNode, submodelId: string, path: string): string | undefined {
  const nodeId = new NodeId(NodeIdType.STRING, elementNodeId(submodelId, path), near.nodeId.namespace);
  const element = near.addressSpace.findNode(nodeId);
  if (element === null || element.nodeClass !== NodeClass.Object) return undefined;
  const name = (element as UAObject).typeDefinitionObj?.browseName.name;
  return name?.startsWith("AAS") && name.endsWith("Type") ? name.slice(3, -4) : undefined;
}
