/**
 * Issue 14 item 7: values of Twinport's own structured types (AASKeyDataType in Keys,
 * AASSpecificAssetIdDataType) decode in clients that know nothing of them in advance, both ways a
 * client learns a structure: the DataTypeDefinition attribute (OPC UA 1.04) and the binary type
 * dictionary under "OPC Binary" (1.03; what UaExpert and asyncua's load_type_definitions read).
 * Each test opens a fresh client and session, so nothing is cached from another test.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  AttributeIds,
  BinaryStream,
  BrowseDirection,
  type ClientSession,
  DataTypeExtractStrategy,
  ExtraDataTypeManager,
  OPCUACertificateManager,
  OPCUAClient,
  populateDataTypeManager,
  resolveNodeId,
} from "node-opcua";
import { AAS_V3_NAMESPACE_URI } from "../test-support/opcua-client.ts";
import { SHELL, VALUES_SUBMODEL } from "../test-support/opcua-model.ts";
import type { Mode } from "../test-support/system.ts";
import { type OpcuaSystem, startOpcuaSystem } from "./opcua-system.ts";

// Numeric ids of our nodeset (services/opcua-gateway/src/address-space/twinport-aas-v3.NodeSet2.xml).
const KEY = { dataType: 3005, binaryEncoding: 5001 };
const SPECIFIC_ASSET_ID = { dataType: 3006, binaryEncoding: 5004 };
const KEYS_NODE = `${VALUES_SUBMODEL}|Link/Value/Keys`;
const SPECIFIC_ASSET_ID_NODE = `${SHELL}|/AssetInformation/SpecificAssetId`;
const GLOBAL_REFERENCE = 11; // AASKeyTypesDataType

interface Encodable {
  encode(stream: BinaryStream): void;
  binaryStoreSize(): number;
}

export function opcuaStructuredTypesSuite(mode: Mode): void {
  let system: OpcuaSystem;
  const pki = mkdtempSync(join(tmpdir(), "twinport-structured-client-"));
  before(async () => {
    system = await startOpcuaSystem(mode);
  });
  after(async () => {
    await system?.stop();
    rmSync(pki, { recursive: true, force: true });
  });

  /** A new client and session against every endpoint: no data type knowledge carried over. */
  async function withFreshSession(
    strategy: DataTypeExtractStrategy,
    use: (session: ClientSession, ns: number) => Promise<void>,
  ): Promise<void> {
    for (const url of system.opcuaUrls) {
      const client = OPCUAClient.create({
        endpointMustExist: false,
        dataTypeExtractStrategy: strategy,
        connectionStrategy: { maxRetry: 0 },
        clientCertificateManager: new OPCUACertificateManager({ rootFolder: pki }),
      });
      await client.connect(url);
      try {
        const session = await client.createSession();
        try {
          const ns = (await session.readNamespaceArray()).indexOf(AAS_V3_NAMESPACE_URI);
          assert.ok(ns > 0, `${AAS_V3_NAMESPACE_URI} in the namespace array of ${url}`);
          await use(session, ns);
        } finally {
          await session.close();
        }
      } finally {
        await client.disconnect();
      }
    }
  }

  async function readArray(session: ClientSession, ns: number, local: string): Promise<Record<string, unknown>[]> {
    const dataValue = await session.read({ nodeId: `ns=${ns};s=${local}`, attributeId: AttributeIds.Value });
    assert.ok(dataValue.statusCode.isGood(), `${local}: ${dataValue.statusCode.toString()}`);
    return dataValue.value.value as Record<string, unknown>[];
  }

  test(`${mode}: Keys and SpecificAssetId read as decoded structures by a fresh client (DataTypeDefinition)`, async () => {
    await withFreshSession(DataTypeExtractStrategy.Auto, async (session, ns) => {
      const [key] = await readArray(session, ns, KEYS_NODE);
      assert.equal(key?.constructor.name, "AASKeyDataType");
      assert.deepEqual(
        { type: key?.type, value: key?.value },
        {
          type: GLOBAL_REFERENCE,
          value: "https://example.org/manufacturer",
        },
      );
      const [assetId] = await readArray(session, ns, SPECIFIC_ASSET_ID_NODE);
      assert.equal(assetId?.constructor.name, "AASSpecificAssetIdDataType");
      assert.deepEqual({ name: assetId?.name, value: assetId?.value }, { name: "serial", value: "S-1" });
      for (const type of [KEY, SPECIFIC_ASSET_ID]) {
        const definition = await session.read({
          nodeId: `ns=${ns};i=${type.dataType}`,
          attributeId: AttributeIds.DataTypeDefinition,
        });
        assert.ok(definition.statusCode.isGood(), `DataTypeDefinition of i=${type.dataType}`);
        assert.equal(definition.value.value?.constructor.name, "StructureDefinition");
      }
    });
  });

  test(`${mode}: the binary type dictionary alone decodes both structures as the server sends them`, async () => {
    await withFreshSession(DataTypeExtractStrategy.Force103, async (session, ns) => {
      // The dictionary node: under "OPC Binary", of our namespace, naming our namespace URI.
      const dictionaries = await session.browse({
        nodeId: "i=93",
        browseDirection: BrowseDirection.Forward,
        referenceTypeId: "HasComponent",
        resultMask: 63,
      });
      const ours = dictionaries.references?.find((reference) => reference.nodeId.namespace === ns);
      assert.ok(ours, "a type dictionary of our namespace under OPC Binary");
      assert.equal(ours.typeDefinition.toString(), "ns=0;i=72");

      // Only what populateDataTypeManager's 1.03 path finds: dictionaries, their descriptions and the
      // encodings' HasDescription. The synchronous lookups below never fall back to DataTypeDefinition.
      const manager = new ExtraDataTypeManager();
      await populateDataTypeManager(session, manager, DataTypeExtractStrategy.Force103);
      const fromDictionary = (encoding: number) =>
        manager.getExtensionObjectConstructorFromBinaryEncoding(resolveNodeId(`ns=${ns};i=${encoding}`));

      // The bytes the server sends: the value as the session decoded it, encoded again.
      const decode = (value: Record<string, unknown>, encoding: number) => {
        const encodable = value as unknown as Encodable;
        const stream = new BinaryStream(encodable.binaryStoreSize());
        encodable.encode(stream);
        const Constructor = fromDictionary(encoding);
        const decoded = new Constructor() as unknown as Record<string, unknown> & {
          decode(stream: BinaryStream): void;
        };
        decoded.decode(new BinaryStream(stream.buffer));
        return decoded;
      };
      const [key] = await readArray(session, ns, KEYS_NODE);
      const viaDictionary = decode(key!, KEY.binaryEncoding);
      assert.deepEqual(
        { type: viaDictionary.type, value: viaDictionary.value },
        { type: GLOBAL_REFERENCE, value: "https://example.org/manufacturer" },
      );
      const [assetId] = await readArray(session, ns, SPECIFIC_ASSET_ID_NODE);
      const assetIdViaDictionary = decode(assetId!, SPECIFIC_ASSET_ID.binaryEncoding);
      assert.deepEqual(
        { name: assetIdViaDictionary.name, value: assetIdViaDictionary.value },
        { name: "serial", value: "S-1" },
      );
    });
  });
}
