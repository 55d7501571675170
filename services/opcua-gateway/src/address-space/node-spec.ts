import type { Argument, LocalizedText, NodeId } from "node-opcua";
import type { OperationBinding } from "../methods/operation-method.ts";
import type { NodeValue } from "../values/datatype-mapping.ts";
import type { WriteBinding } from "../values/write-binding.ts";

/**
 * What the address space should contain, computed from AAS JSON without touching node-opcua;
 * the node builder turns it into nodes, or patches existing nodes in place to match it.
 */
export type NodeSpec = ObjectSpec | VariableSpec | MethodSpec;

/** Which namespace a browse name belongs to: I4AAS for the names it defines, ours otherwise ("ua": namespace 0). */
export type NameSpace = "i4aas" | "v3" | "ua";

interface BaseSpec {
  /** The string part of the NodeId (node-ids.ts). */
  nodeId: string;
  name: string;
  nameSpace: NameSpace;
  description?: LocalizedText;
}

export interface ObjectSpec extends BaseSpec {
  class: "object";
  typeDefinition: NodeId;
  /** How the parent refers to it (default HasComponent). */
  reference?: "component" | "organizes";
  /** Iterated once per build; a generator keeps a 100,000-element submodel from existing twice in memory. */
  children: Iterable<NodeSpec>;
  /** Non-hierarchical AASReference targets (e.g. a shell's submodel reference → the submodel node). */
  refersTo?: string[];
}

export interface VariableSpec extends BaseSpec {
  class: "variable";
  dataType: NodeId;
  /** -1 scalar, 1 one-dimensional array. */
  valueRank: -1 | 1;
  value: NodeValue;
  /** Set for the writable value nodes of spec §4.5 (absent: read-only metadata). */
  write?: WriteBinding;
}

export interface MethodSpec extends BaseSpec {
  class: "method";
  inputArguments: Argument[];
  outputArguments: Argument[];
  operation: OperationBinding;
}
