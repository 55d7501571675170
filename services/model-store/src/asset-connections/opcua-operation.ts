import type {
  ElementJson,
  OpcUaOperationProviderConfig,
  OperationInvocation,
  OperationOutcome,
  OperationProvider,
  ProviderTarget,
  StoreClient,
} from "@twinport/shared";
import { BrowseDirection, DataType, type NodeId, Variant, VariantArrayType } from "node-opcua-client";
import { AssetError } from "./asset-connection-types.ts";
import { propertyLexical, withAssetValue } from "./asset-value.ts";
import type { OpcuaLink } from "./opcua-driver.ts";
import { concreteDataType, lexicalFromOpcua, opcuaFromLexical } from "./opcua-values.ts";
import { readDeclaration, validateArguments } from "./operation-arguments.ts";

export interface OpcuaOperationOptions {
  target: ProviderTarget;
  config: OpcUaOperationProviderConfig;
  store: StoreClient;
  /** The session to call on (opened on demand when this process does not run the connection). */
  link(): Promise<OpcuaLink>;
  /** After each call, so an on-demand session can close when idle. */
  done(): void;
}

/** The object a method hangs below: the first HasComponent parent, as FA³ST finds it. */
async function parentOf(link: OpcuaLink, method: NodeId, methodText: string): Promise<NodeId> {
  const browsed = await link.session.browse({
    nodeId: method,
    browseDirection: BrowseDirection.Inverse,
    referenceTypeId: "HasComponent",
    includeSubtypes: true,
    resultMask: 0x3f,
  });
  const parent = browsed.references?.[0]?.nodeId;
  if (!browsed.statusCode.isGood() || !parent)
    throw new AssetError(`no object owns the method ${methodText}: set parentNodeId`, { retryable: false });
  return parent;
}

function argumentDataType(dataType: NodeId, name: string): DataType {
  const builtIn = dataType.namespace === 0 ? concreteDataType(Number(dataType.value)) : undefined;
  if (builtIn === undefined)
    throw new AssetError(
      `the method argument ${name} has DataType ${dataType.toString()}, which no Property value converts to`,
      { retryable: false },
    );
  return builtIn;
}

/**
 * An OPC UA operation provider (docs/reference/faaast-asset-connections.md §4.5): calls the Method node on its
 * parent object. Input arguments follow the method's declared InputArguments in order, each taken
 * from the AAS input (or else in-out) argument whose idShort `inputArgumentMapping` links to its
 * name (default: the same name). Outputs are read back by name through `outputArgumentMapping`;
 * an output with no matching OPC UA argument is left out, for output validation to judge.
 * Only Property arguments convert, as in FA³ST.
 */
export function createOpcuaOperationProvider(options: OpcuaOperationOptions): OperationProvider {
  const { target, config, store } = options;
  const inputIdShort = (argumentName: string) =>
    config.inputArgumentMapping.find((m) => m.argumentName === argumentName)?.idShort ?? argumentName;
  const outputName = (idShort: string) =>
    config.outputArgumentMapping.find((m) => m.idShort === idShort)?.argumentName ?? idShort;
  return {
    async invoke(invocation: OperationInvocation): Promise<OperationOutcome> {
      const declaration = await readDeclaration(store, target);
      for (const output of [...declaration.outputs, ...declaration.inoutputs]) {
        if (output.modelType !== "Property")
          throw new AssetError(
            `the output ${String(output.idShort)} is a ${String(output.modelType)}; OPC UA method results fill Properties only`,
            { retryable: false },
          );
      }
      const inputs = validateArguments(
        config.inputValidationMode,
        declaration.inputs,
        invocation.inputArguments,
        "input",
      );
      const inoutputs = validateArguments(
        config.inoutputValidationMode,
        declaration.inoutputs,
        invocation.inoutputArguments,
        "in-out",
      );
      const link = await options.link();
      try {
        const method = link.nodeId(config.nodeId);
        const object = config.parentNodeId
          ? link.nodeId(config.parentNodeId)
          : await parentOf(link, method, config.nodeId);
        const definition = await link.session.getArgumentDefinition(method);
        const inputArguments = definition.inputArguments.map((argument) => {
          const name = String(argument.name);
          const idShort = inputIdShort(name);
          const element = inputs.find((a) => a.idShort === idShort) ?? inoutputs.find((a) => a.idShort === idShort);
          if (!element)
            throw new AssetError(`no input argument ${idShort} for the method's argument ${name}`, {
              retryable: false,
            });
          const lexical = propertyLexical(element);
          if (lexical === null)
            throw new AssetError(`the input argument ${idShort} has no value`, { retryable: false });
          const dataType = argumentDataType(argument.dataType, name);
          if (argument.valueRank !== undefined && argument.valueRank > 0)
            throw new AssetError(`the method argument ${name} is an array; Property values are single`, {
              retryable: false,
            });
          return new Variant({
            dataType,
            arrayType: VariantArrayType.Scalar,
            value: opcuaFromLexical(lexical, dataType, String(element.valueType)),
          });
        });
        const result = await link.session.call({ objectId: object, methodId: method, inputArguments });
        if (!result.statusCode.isGood())
          throw new AssetError(`calling ${config.nodeId} answered ${result.statusCode.name}`, { retryable: false });
        const returned = (variable: ElementJson): ElementJson | undefined => {
          const position = definition.outputArguments.findIndex(
            (argument) => String(argument.name) === outputName(String(variable.idShort)),
          );
          const variant = position < 0 ? undefined : result.outputArguments?.[position];
          if (!variant) return undefined;
          return withAssetValue(
            variable,
            lexicalFromOpcua(variant.value, variant.dataType, String(variable.valueType)),
          );
        };
        const outputs = declaration.outputs.map(returned).filter((e): e is ElementJson => e !== undefined);
        return {
          outputArguments: validateArguments(config.outputValidationMode, declaration.outputs, outputs, "output"),
          inoutputArguments: inoutputs.map((argument) => returned(argument) ?? argument),
        };
      } finally {
        options.done();
      }
    },
  };
}
