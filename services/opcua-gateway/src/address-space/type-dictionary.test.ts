// The binary type dictionary in our nodeset is hand-written base64: this keeps it equal to the
// <Definition> of every data type, the other description clients read (issue 14 item 7).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { AAS_V3_NODESET } from "./aas-types.ts";

const nodeset = readFileSync(AAS_V3_NODESET, "utf8");

/** Name → fields ("Name=Value" for enumerations, "Name:Type" for structures), from the <Definition>s. */
function fromDefinitions(): Map<string, string[]> {
  const dataTypes = [
    ...nodeset.matchAll(/<UADataType NodeId="(ns=1;i=\d+)" BrowseName="1:(\w+)">([\s\S]*?)<\/UADataType>/g),
  ];
  const names = new Map(dataTypes.map(([, nodeId, name]) => [nodeId!, name!]));
  return new Map(
    dataTypes.map(([, , name, body]) => [
      name!,
      [...body!.matchAll(/<Field Name="(\w+)"(?: Value="(\d+)")?(?: DataType="([^"]+)")?/g)].map(
        ([, field, value, type]) =>
          value !== undefined ? `${field}=${value}` : `${field}:${names.has(type!) ? names.get(type!) : type}`,
      ),
    ]),
  );
}

/** The same, from the opc:TypeDictionary the nodeset carries as a ByteString. */
function fromDictionary(): Map<string, string[]> {
  const base64 = /TypeDictionary_BinarySchema"[\s\S]*?<ByteString[^>]*>([\s\S]*?)<\/ByteString>/.exec(nodeset)?.[1];
  assert.ok(base64, "a binary type dictionary in the nodeset");
  const xml = Buffer.from(base64.replace(/\s/g, ""), "base64").toString("utf8");
  assert.match(xml, /TargetNamespace="urn:twinport:UA:AAS:v3"/);
  const types = [...xml.matchAll(/<opc:(?:EnumeratedType|StructuredType) Name="(\w+)"[^>]*>([\s\S]*?)<\/opc:/g)];
  return new Map(
    types.map(([, name, body]) => [
      name!,
      [
        ...body!.matchAll(
          /<opc:(?:EnumeratedValue|Field) Name="(\w+)" (?:Value="(\d+)"|TypeName="(?:opc|tns):(\w+)")/g,
        ),
      ].map(([, field, value, type]) => (value !== undefined ? `${field}=${value}` : `${field}:${type}`)),
    ]),
  );
}

test("every data type of our namespace is in the binary type dictionary, field for field", () => {
  assert.deepEqual(fromDictionary(), fromDefinitions());
});

test("each structure's Default Binary encoding points to its DataTypeDescription in the dictionary", () => {
  for (const [dataType, encoding, description] of [
    ["3005", "5001", "6203"],
    ["3006", "5004", "6204"],
  ]) {
    const encodingNode =
      new RegExp(`<UAObject NodeId="ns=1;i=${encoding}" BrowseName="Default Binary"[\\s\\S]*?</UAObject>`).exec(
        nodeset,
      )?.[0] ?? "";
    assert.match(encodingNode, new RegExp(`ReferenceType="HasEncoding" IsForward="false">ns=1;i=${dataType}<`));
    assert.match(encodingNode, new RegExp(`ReferenceType="i=39">ns=1;i=${description}<`));
  }
});
