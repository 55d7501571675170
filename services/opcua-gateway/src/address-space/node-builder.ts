import {
  AccessLevelFlag,
  Argument,
  type BaseNode,
  BrowseDirection,
  coerceLocalizedText,
  DataType,
  type DataValue,
  type INamespace,
  type LocalizedText,
  NodeClass,
  NodeId,
  NodeIdType,
  QualifiedName,
  StatusCodes,
  sameVariant,
  type UAMethod,
  type UAVariable,
  Variant,
  VariantArrayType,
} from "node-opcua";
import { bindOperation } from "../methods/operation-method.ts";
import { bindWrite } from "../values/write-binding.ts";
import type { AasTypes } from "./aas-types.ts";
import { identifiableIdOf } from "./node-ids.ts";
import type { MethodSpec, NodeSpec, ObjectSpec, VariableSpec } from "./node-spec.ts";

/** node-opcua's node creation below its public addObject/addVariable (see createRaw). */
interface RawNamespace {
  internalCreateNode(options: Record<string, unknown>): BaseNode;
}
interface RawNode {
  propagate_back_references(): void;
}

const READ_ONLY = AccessLevelFlag.CurrentRead;
/** Released values kept for their SourceTimestamps (NodeBuilder.released): ~20 MB at most. */
const MAX_RELEASED_VALUES = 100_000;
const READ_WRITE = AccessLevelFlag.CurrentRead | AccessLevelFlag.CurrentWrite;

/**
 * Turns NodeSpecs into nodes of our namespace, and later patches those nodes in place so a
 * client's monitored items keep working: a node whose NodeId, class and type still fit is kept
 * and only its value (and write binding) changes; only nodes that no longer exist are deleted.
 */
export class NodeBuilder {
  private readonly namespace: INamespace;
  /**
   * Declared AASReference links, target → sources: a shell can name a submodel the gateway has not
   * built yet (or is rebuilding); the link is made when that node is created.
   */
  private readonly links = new Map<string, Set<string>>();
  /** Browse and display names of the fixed sub-nodes (Value, ValueType, …), shared by every node. */
  private readonly names = new Map<string, { browseName: QualifiedName; displayName: LocalizedText }>();
  /**
   * The values of released nodes (releaseBelow), by NodeId, oldest first: a node made again with
   * the same value keeps its SourceTimestamp. Without it, every release and rebuild (ADR 0036)
   * stamped an unchanged value anew, and a polling client or historian saw a new sample each time
   * (black-box finding). Bounded: past it the oldest go, and their nodes get the build time again.
   */
  private readonly released = new Map<string, DataValue>();

  constructor(private readonly types: AasTypes) {
    const namespace = types.addressSpace.getNamespace(types.v3Index);
    if (!namespace) throw new Error("AAS v3 namespace missing");
    this.namespace = namespace;
  }

  nodeIdOf(local: string): NodeId {
    return new NodeId(NodeIdType.STRING, local, this.types.v3Index);
  }

  find(local: string): BaseNode | null {
    return this.namespace.findNode(this.nodeIdOf(local));
  }

  /** Make `spec` exist below `parent`: created when missing, patched in place when present. */
  apply(spec: NodeSpec, parent: BaseNode): BaseNode {
    const existing = this.find(spec.nodeId);
    if (existing === null) return this.create(spec, parent);
    if (!this.fits(existing, spec)) {
      this.remove(existing);
      return this.create(spec, parent);
    }
    this.patch(existing, spec);
    return existing;
  }

  /** apply() for each spec, then delete the children of ours below `parent` that are not specified. */
  applyChildren(parent: BaseNode, specs: Iterable<NodeSpec>): void {
    const wanted = new Set<string>();
    for (const spec of specs) {
      wanted.add(spec.nodeId);
      this.apply(spec, parent);
    }
    for (const child of this.ownChildren(parent)) {
      if (!wanted.has(child.nodeId.value as string)) this.remove(child);
    }
  }

  remove(node: BaseNode | string): void {
    const target = typeof node === "string" ? this.find(node) : node;
    if (target !== null) this.namespace.deleteNode(target);
  }

  /**
   * remove() of nodes that are released, not deleted from the model (lazy nodes, ADR 0036): their
   * variables' values are kept for when the nodes are made again (`released`).
   */
  releaseBelow(node: BaseNode): void {
    const pending = [node];
    while (pending.length > 0) {
      const next = pending.pop()!;
      if (next.nodeClass === NodeClass.Variable) {
        const local = next.nodeId.value as string;
        this.released.delete(local);
        this.released.set(local, (next as unknown as { $dataValue: DataValue }).$dataValue);
      }
      pending.push(...this.ownChildren(next));
    }
    while (this.released.size > MAX_RELEASED_VALUES) this.released.delete(this.released.keys().next().value!);
    this.remove(node);
  }

  /** Hierarchical children in our namespace (the ones we build), in creation order. */
  ownChildren(parent: BaseNode): BaseNode[] {
    const children: BaseNode[] = [];
    for (const reference of parent.findReferencesEx("HierarchicalReferences", BrowseDirection.Forward)) {
      if (reference.nodeId.namespace !== this.types.v3Index) continue;
      const child = this.namespace.findNode(reference.nodeId);
      if (child) children.push(child);
    }
    return children;
  }

  create(spec: NodeSpec, parent: BaseNode): BaseNode {
    switch (spec.class) {
      case "object": {
        const node = this.createRaw(
          spec,
          NodeClass.Object,
          parent,
          spec.reference === "organizes" ? this.types.reference.organizes : this.types.reference.hasComponent,
          {
            eventNotifier: 0,
            typeDefinition: spec.typeDefinition,
          },
        );
        for (const child of spec.children) this.create(child, node);
        this.linkReferences(node, spec);
        this.linkFromSources(node, spec.nodeId);
        return node;
      }
      case "variable": {
        const node = this.createRaw(spec, NodeClass.Variable, parent, this.types.reference.hasProperty, {
          typeDefinition: this.types.propertyType,
          dataType: spec.dataType,
          valueRank: spec.valueRank,
          arrayDimensions: spec.valueRank === 1 ? [0] : null,
          accessLevel: spec.write ? READ_WRITE : READ_ONLY,
          userAccessLevel: spec.write ? READ_WRITE : READ_ONLY,
          // 0: changes are pushed by setValueFromSource, never sampled.
          minimumSamplingInterval: 0,
          historizing: false,
          value: spec.value.variant,
        }) as UAVariable;
        const kept = this.released.get(spec.nodeId);
        if (kept !== undefined) this.released.delete(spec.nodeId);
        // Made again with the value it had when released: the time that value was set stays.
        const unchanged =
          kept !== undefined &&
          kept.statusCode === spec.value.statusCode &&
          sameVariant(kept.value, spec.value.variant);
        if (unchanged && kept.sourceTimestamp !== null)
          node.setValueFromSource(spec.value.variant, spec.value.statusCode, kept.sourceTimestamp);
        else if (spec.value.statusCode !== StatusCodes.Good)
          node.setValueFromSource(spec.value.variant, spec.value.statusCode);
        if (spec.write) bindWrite(node, spec.write);
        return node;
      }
      case "method":
        return this.createMethod(spec, parent);
    }
  }

  /**
   * node-opcua's public addObject/addVariable wrap this call in a model-change transaction, a
   * reference-type normalisation, a child-accessor install and a model-change event per node:
   * about 37 µs a node, 11 s for 100,000 properties. Creating the node directly with references
   * already resolved costs about 24 µs (measured on node-opcua 2.182.2; ADR 0009 lists what was
   * re-checked on each upgrade): the difference
   * keeps a 100,000-element model within its 15 s build target. Nodes made this way browse, read,
   * write and delete like any other; they only raise no GeneralModelChangeEvent.
   */
  private createRaw(
    spec: NodeSpec,
    nodeClass: NodeClass,
    parent: BaseNode,
    parentReference: NodeId,
    options: Record<string, unknown> & { typeDefinition?: NodeId },
  ): BaseNode {
    const references: Record<string, unknown>[] = [
      { referenceType: parentReference, isForward: false, nodeId: parent.nodeId },
    ];
    if (options.typeDefinition)
      references.push({
        referenceType: this.types.reference.hasTypeDefinition,
        isForward: true,
        nodeId: options.typeDefinition,
      });
    const names = this.namesOf(spec);
    options.nodeClass = nodeClass;
    options.nodeId = this.nodeIdOf(spec.nodeId);
    options.browseName = names.browseName;
    options.displayName = names.displayName;
    if (spec.description) options.description = spec.description;
    options.references = references;
    const node = (this.namespace as unknown as RawNamespace).internalCreateNode(options);
    (node as unknown as RawNode).propagate_back_references();
    return node;
  }

  private createMethod(spec: MethodSpec, parent: BaseNode): BaseNode {
    const method = this.createRaw(spec, NodeClass.Method, parent, this.types.reference.hasComponent, {}) as UAMethod;
    const argumentsSpec = (name: "InputArguments" | "OutputArguments", list: Argument[]): VariableSpec => ({
      class: "variable",
      nodeId: `${spec.nodeId}/${name}`,
      name,
      // Standard browse names (namespace 0): where clients and node-opcua look for them.
      nameSpace: "ua",
      dataType: new NodeId(NodeIdType.NUMERIC, 296, 0), // Argument
      valueRank: 1,
      value: {
        variant: new Variant({ dataType: DataType.ExtensionObject, arrayType: VariantArrayType.Array, value: list }),
        statusCode: StatusCodes.Good,
      },
    });
    if (spec.inputArguments.length > 0) this.create(argumentsSpec("InputArguments", spec.inputArguments), method);
    if (spec.outputArguments.length > 0) this.create(argumentsSpec("OutputArguments", spec.outputArguments), method);
    bindOperation(method, spec.operation);
    return method;
  }

  /**
   * Drops the declared links whose source node belongs to one of `ids` (local NodeIds "<id>|…"):
   * their nodes were released (ADR 0036) and declare them again when made again.
   */
  forgetLinksOf(ids: ReadonlySet<string>): void {
    for (const [target, sources] of this.links) {
      for (const source of sources) if (ids.has(identifiableIdOf(source) ?? "")) sources.delete(source);
      if (sources.size === 0) this.links.delete(target);
    }
  }

  /** Non-hierarchical AASReference links, e.g. a shell's submodel reference → the submodel node. */
  private linkReferences(node: BaseNode, spec: ObjectSpec): void {
    for (const target of spec.refersTo ?? []) {
      let sources = this.links.get(target);
      if (sources === undefined) this.links.set(target, (sources = new Set()));
      sources.add(spec.nodeId);
      if (this.find(target) !== null) this.addLink(node, target);
    }
  }

  private linkFromSources(target: BaseNode, targetLocal: string): void {
    if (this.links.size === 0) return;
    for (const sourceLocal of this.links.get(targetLocal) ?? []) {
      const source = this.find(sourceLocal);
      if (source !== null) this.addLink(source, targetLocal);
    }
  }

  private addLink(source: BaseNode, targetLocal: string): void {
    source.addReference({
      referenceType: this.types.reference.aasReference,
      isForward: true,
      nodeId: this.nodeIdOf(targetLocal),
    });
  }

  private namesOf(spec: NodeSpec): { browseName: QualifiedName; displayName: LocalizedText } {
    // Only variables and methods have fixed names; element names (idShorts) are too many to keep.
    const shared = spec.class !== "object";
    const key = `${spec.nameSpace}:${spec.name}`;
    const known = shared ? this.names.get(key) : undefined;
    if (known) return known;
    const namespaceIndex =
      spec.nameSpace === "i4aas" ? this.types.i4aasIndex : spec.nameSpace === "ua" ? 0 : this.types.v3Index;
    const names = {
      browseName: new QualifiedName({ name: spec.name, namespaceIndex }),
      displayName: coerceLocalizedText(spec.name)!,
    };
    if (shared) this.names.set(key, names);
    return names;
  }

  /** Whether an existing node can be patched into `spec` (same class, type, data type and name). */
  private fits(node: BaseNode, spec: NodeSpec): boolean {
    if (node.browseName.name !== spec.name) return false;
    switch (spec.class) {
      case "object":
        return (
          node.nodeClass === NodeClass.Object &&
          sameNodeId((node as unknown as { typeDefinition: NodeId }).typeDefinition, spec.typeDefinition)
        );
      case "variable": {
        if (node.nodeClass !== NodeClass.Variable) return false;
        const variable = node as UAVariable;
        // A changed DataType (a PUT that changes a Property's valueType) is patched in place: a
        // new node would end every monitored item on it (BadNodeIdInvalid) though its NodeId stays.
        return (
          variable.valueRank === spec.valueRank &&
          ((variable.accessLevel & AccessLevelFlag.CurrentWrite) !== 0) === Boolean(spec.write)
        );
      }
      case "method":
        // Arguments live in child properties that clients cache: a changed signature is a new node.
        return node.nodeClass === NodeClass.Method && sameArguments(node as UAMethod, spec);
    }
  }

  private patch(node: BaseNode, spec: NodeSpec): void {
    if (!sameText(node.description, spec.description)) node.setDescription(spec.description ?? "");
    switch (spec.class) {
      case "object":
        this.applyChildren(node, spec.children);
        // Links are cheap to recompute; stale ones would point at deleted or replaced nodes.
        for (const reference of node.findReferencesEx(this.types.reference.aasReference, BrowseDirection.Forward))
          node.removeReference(reference);
        this.linkReferences(node, spec);
        return;
      case "variable": {
        const variable = node as UAVariable;
        if (!sameNodeId(variable.dataType, spec.dataType)) {
          // What node-opcua's own changeUAVariableDataType does (not exported): the DataType, and its
          // cached basic type, which setValueFromSource checks the new value against (ADR 0009).
          const raw = variable as unknown as { dataType: NodeId; _basicDataType: unknown };
          raw.dataType = spec.dataType;
          raw._basicDataType = null;
        }
        // The stored DataValue itself: readValue() clones it, which a resync of 300,000 nodes feels.
        const current = (variable as unknown as { $dataValue: DataValue }).$dataValue;
        if (!sameVariant(current.value, spec.value.variant) || current.statusCode !== spec.value.statusCode) {
          variable.setValueFromSource(spec.value.variant, spec.value.statusCode);
        }
        if (spec.write) bindWrite(variable, spec.write);
        return;
      }
      case "method":
        bindOperation(node as UAMethod, spec.operation);
        return;
    }
  }
}

function sameNodeId(a: NodeId | undefined, b: NodeId): boolean {
  return a !== undefined && a.namespace === b.namespace && a.value === b.value && a.identifierType === b.identifierType;
}

// node-opcua answers a missing description with an empty text: both mean "none".
function sameText(a: LocalizedText | null | undefined, b: LocalizedText | undefined): boolean {
  return (a?.text || null) === (b?.text || null) && (a?.locale || null) === (b?.locale || null);
}

function sameArguments(method: UAMethod, spec: MethodSpec): boolean {
  const signature = (list: Argument[]) =>
    list.map((argument) => `${argument.name}:${argument.dataType.toString()}:${argument.valueRank}`).join(",");
  return (
    signature(method.getInputArguments()) === signature(spec.inputArguments) &&
    signature(method.getOutputArguments()) === signature(spec.outputArguments)
  );
}
