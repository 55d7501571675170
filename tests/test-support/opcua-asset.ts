/**
 * An OPC UA device for asset-connection tests: node-opcua's OPCUAServer on a free loopback port
 * with a few variables and a method, its PKI in a temp dir, stopped by the test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DataType,
  nodesets,
  OPCUACertificateManager,
  OPCUAServer,
  StatusCodes,
  type UAVariable,
  Variant,
  VariantArrayType,
} from "node-opcua";
import { freePort } from "./servers.ts";

export interface OpcuaAsset {
  endpointUrl: string;
  port: number;
  /** URI of the device's own namespace: index 2 (after the server's own), as "ns=2;s=…" in most PLCs. */
  namespaceUri: string;
  variables: Record<"Temperature" | "Setpoint" | "Label" | "BigCounter" | "Serial" | "Positions", UAVariable>;
  /** The device's PKI (node-opcua's layout): the client certificates it accepted are in trusted/certs. */
  pkiDir: string;
  /** Every call of Machine.Calibrate: its inputs. */
  calls: { offset: number; cycles: number }[];
  /** Changes a variable as the device would (monitored items see it). */
  set(name: keyof OpcuaAsset["variables"], value: unknown, dataType: DataType): void;
  get(name: keyof OpcuaAsset["variables"]): unknown;
  /**
   * Adds a variable ns=2;s=<name> under Machine while the device runs, as a device does that makes
   * its nodes once configured; `removeNode` deletes it again (a device reconfigured or restarted).
   */
  addVariable(name: string, value: Variant): UAVariable;
  removeNode(name: string): void;
  /** How many Read and CreateMonitoredItems requests named ns=2;s=<name> so far (a client's attempts). */
  requestsFor(name: string): number;
  stop(): Promise<void>;
}

export const OPCUA_ASSET_NAMESPACE = "urn:twinport:test:device";

/**
 * An OPC UA device: Objects/Machine with variables ns=2;s=Temperature (Double), s=Setpoint (Int32,
 * writable), s=Label (String), s=BigCounter (Int64), s=Serial (String, read-only), s=Positions (Double[3]) and the method
 * s=Machine.Calibrate(offset: Double, cycles: Int32) → deviation: Double = offset * cycles.
 * Its PKI lives in a temp dir and it accepts any client certificate.
 */
export async function startOpcuaAsset(options: { port?: number } = {}): Promise<OpcuaAsset> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "twinport-opcua-asset-"));
  const serverCertificateManager = new OPCUACertificateManager({
    rootFolder: join(dir, "pki"),
    automaticallyAcceptUnknownCertificate: true,
  });
  await serverCertificateManager.initialize();
  const server = new OPCUAServer({
    port,
    hostname: "127.0.0.1",
    nodeset_filename: [nodesets.standard],
    serverCertificateManager,
    userCertificateManager: serverCertificateManager,
    buildInfo: { productName: "Twinport test device" },
  });
  await server.initialize();
  const addressSpace = server.engine.addressSpace!;
  const namespace = addressSpace.registerNamespace(OPCUA_ASSET_NAMESPACE);
  const machine = namespace.addObject({
    browseName: "Machine",
    nodeId: "s=Machine",
    organizedBy: addressSpace.rootFolder.objects,
  });
  const variable = (name: string, dataType: string, value: Variant, writable = true) =>
    namespace.addVariable({
      componentOf: machine,
      browseName: name,
      nodeId: `s=${name}`,
      dataType,
      ...(value.arrayType ? { valueRank: 1, arrayDimensions: [3] } : {}),
      accessLevel: writable ? "CurrentRead | CurrentWrite" : "CurrentRead",
      userAccessLevel: writable ? "CurrentRead | CurrentWrite" : "CurrentRead",
      minimumSamplingInterval: 0,
      value,
    });
  const variables = {
    Temperature: variable("Temperature", "Double", new Variant({ dataType: DataType.Double, value: 20.5 })),
    Setpoint: variable("Setpoint", "Int32", new Variant({ dataType: DataType.Int32, value: 7 })),
    Label: variable("Label", "String", new Variant({ dataType: DataType.String, value: "idle" })),
    BigCounter: variable(
      "BigCounter",
      "Int64",
      new Variant({ dataType: DataType.Int64, arrayType: VariantArrayType.Scalar, value: [0x7fffffff, 0xffffffff] }),
    ),
    Serial: variable("Serial", "String", new Variant({ dataType: DataType.String, value: "SN-0001" }), false),
    Positions: variable(
      "Positions",
      "Double",
      new Variant({ dataType: DataType.Double, arrayType: VariantArrayType.Array, value: new Float64Array([1, 2, 3]) }),
    ),
  };
  const calls: { offset: number; cycles: number }[] = [];
  const calibrate = namespace.addMethod(machine, {
    browseName: "Calibrate",
    nodeId: "s=Machine.Calibrate",
    inputArguments: [
      { name: "offset", dataType: DataType.Double },
      { name: "cycles", dataType: DataType.Int32 },
    ],
    outputArguments: [{ name: "deviation", dataType: DataType.Double }],
  });
  calibrate.bindMethod(async (inputArguments: Variant[], _context: unknown) => {
    const offset = inputArguments[0]!.value as number;
    const cycles = inputArguments[1]!.value as number;
    calls.push({ offset, cycles });
    return {
      statusCode: StatusCodes.Good,
      outputArguments: [new Variant({ dataType: DataType.Double, value: offset * cycles })],
    };
  });
  const requestsByNode = new Map<string, number>();
  server.on("request", (message) => {
    const request = message as unknown as { schema: { name: string } } & Record<string, unknown>;
    const nodes =
      request.schema.name === "ReadRequest"
        ? ((request.nodesToRead ?? []) as { nodeId: { value: unknown } }[]).map((n) => n.nodeId)
        : request.schema.name === "CreateMonitoredItemsRequest"
          ? ((request.itemsToCreate ?? []) as { itemToMonitor: { nodeId: { value: unknown } } }[]).map(
              (i) => i.itemToMonitor.nodeId,
            )
          : [];
    for (const node of nodes) requestsByNode.set(String(node.value), (requestsByNode.get(String(node.value)) ?? 0) + 1);
  });
  await server.start();
  return {
    endpointUrl: `opc.tcp://127.0.0.1:${port}`,
    port,
    namespaceUri: OPCUA_ASSET_NAMESPACE,
    pkiDir: join(dir, "pki"),
    variables,
    calls,
    set(name, value, dataType) {
      const array =
        ArrayBuffer.isView(value) ||
        (Array.isArray(value) && dataType !== DataType.Int64 && dataType !== DataType.UInt64);
      variables[name].setValueFromSource(
        new Variant({ dataType, value, arrayType: array ? VariantArrayType.Array : VariantArrayType.Scalar }),
      );
    },
    get: (name) => variables[name].readValue().value.value,
    addVariable: (name, value) => variable(name, DataType[value.dataType], value),
    requestsFor: (name) => requestsByNode.get(name) ?? 0,
    removeNode(name) {
      addressSpace.deleteNode(addressSpace.findNode(`ns=${namespace.index};s=${name}`)!);
    },
    async stop() {
      await server.shutdown(0);
      await serverCertificateManager.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
