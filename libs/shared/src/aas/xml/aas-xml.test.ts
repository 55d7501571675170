import assert from "node:assert/strict";
import { test } from "node:test";
import { AasError } from "../aas-error.ts";
import { ABSTRACT_CLASSES, CLASSES, type PropertyShape } from "../metamodel-schema.ts";
import { readAas } from "../model-io.ts";
import { exampleEnvironment, type Json, richShell, richSubmodel } from "../test-support/fixtures.ts";
import { createAasXmlReader, parseAasXml } from "./aas-xml-reader.ts";
import { writeAasXml } from "./aas-xml-writer.ts";

const NS = "https://admin-shell.io/aas/3/0";

function fullEnvironment(): Json {
  const environment = exampleEnvironment();
  environment.submodels.push(richSubmodel());
  environment.assetAdministrationShells.push(richShell());
  return environment;
}

function roundTrip(environment: Json): Json {
  return parseAasXml(writeAasXml(environment));
}

function assertAasError(action: () => unknown, kind: string, pattern: RegExp): AasError {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof AasError, `expected an AasError, got ${String(caught)}`);
  assert.equal(caught.kind, kind, caught.message);
  assert.match(caught.message, pattern);
  return caught;
}

test("the element order is the metamodel's (aas-core writes every class's properties in that order)", () => {
  // aas-core's toJsonable and the official XSD are generated from the same meta-model, so its key
  // order is the XSD sequence; the writer follows metamodel-schema.ts, checked here class by class.
  const { jsonable } = readAas(fullEnvironment(), "Environment", { validate: false });
  const checked = new Set<string>();
  const walk = (value: Json, ref: string) => {
    const name = ABSTRACT_CLASSES[ref] ? value.modelType : ref;
    const keys = Object.keys(value).filter((key) => key !== "modelType");
    const schemaOrder = Object.keys(CLASSES[name].properties).filter((key) => keys.includes(key));
    assert.deepEqual(keys, schemaOrder, name);
    checked.add(name);
    for (const [key, item] of Object.entries(value)) {
      const shape: PropertyShape | undefined = CLASSES[name].properties[key];
      if (shape === undefined || shape === "primitive") continue;
      if ("one" in shape) walk(item, shape.one);
      else item.forEach((entry: Json) => walk(entry, shape.many));
    }
  };
  walk(jsonable, "Environment");
  assert.deepEqual([...checked].sort(), Object.keys(CLASSES).sort());
});

test("the example environment survives JSON → XML → JSON unchanged", () => {
  const environment = exampleEnvironment();
  assert.deepEqual(roundTrip(environment), environment);
  const viaXml = readAas(roundTrip(environment), "Environment", { validate: true }).jsonable;
  assert.deepEqual(viaXml, readAas(environment, "Environment", { validate: true }).jsonable);
});

test("every fixture submodel and the rich shell survive the round trip", () => {
  const environment = fullEnvironment();
  for (const submodel of environment.submodels) {
    const single = { submodels: [submodel] };
    assert.deepEqual(roundTrip(single), single, submodel.id);
  }
  const shell = { assetAdministrationShells: [richShell()] };
  assert.deepEqual(roundTrip(shell), shell);
  const conceptDescriptions = { conceptDescriptions: environment.conceptDescriptions };
  assert.deepEqual(roundTrip(conceptDescriptions), conceptDescriptions);
});

test("the XML has the AAS v3.0 shape: namespace, wrapper lists, concrete-class elements, xs:boolean", () => {
  const xml = writeAasXml({ submodels: [richSubmodel()] });
  assert.ok(
    xml.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<environment xmlns="https://admin-shell.io/aas/3/0">'),
  );
  assert.match(xml, /<submodelElements>\s*<property>\s*<idShort>Decimal<\/idShort>/);
  assert.match(
    xml,
    /<keys>\s*<key>\s*<type>GlobalReference<\/type>\s*<value>urn:creator<\/value>\s*<\/key>\s*<\/keys>/,
  );
  assert.match(xml, /<description>\s*<langStringTextType>\s*<language>en<\/language>/);
  assert.match(
    xml,
    /<dataSpecificationContent>\s*<dataSpecificationIec61360>\s*<preferredName>\s*<langStringPreferredNameTypeIec61360>/,
  );
  assert.match(xml, /<inputVariables>\s*<operationVariable>\s*<value>\s*<property>\s*<idShort>In<\/idShort>/);
  assert.match(xml, /<orderRelevant>true<\/orderRelevant>/);
  assert.match(xml, /<levelType>\s*<min>true<\/min>\s*<nom>false<\/nom>/);
  assert.match(xml, /<valueList>\s*<valueReferencePairs>\s*<valueReferencePair>/);
  assert.doesNotMatch(xml, /modelType/);
});

test("a hand-written document in the official layout parses to AAS JSON", () => {
  const xml = `\uFEFF<?xml version="1.0" encoding="UTF-8"?>
<!-- written by hand -->
<aas:environment xmlns:aas="${NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="${NS} AAS.xsd">
  <aas:submodels>
    <aas:submodel>
      <aas:id>urn:sm</aas:id>
      <aas:submodelElements>
        <aas:property>
          <aas:idShort>Note</aas:idShort>
          <aas:valueType>xs:string</aas:valueType>
          <aas:value><![CDATA[<b>bold</b> & ]]>more</aas:value>
        </aas:property>
        <aas:submodelElementList>
          <aas:idShort>Empty</aas:idShort>
          <aas:orderRelevant> 0 </aas:orderRelevant>
          <aas:typeValueListElement>Property</aas:typeValueListElement>
          <aas:value/>
        </aas:submodelElementList>
      </aas:submodelElements>
    </aas:submodel>
  </aas:submodels>
</aas:environment>`;
  assert.deepEqual(parseAasXml(xml), {
    submodels: [
      {
        modelType: "Submodel",
        id: "urn:sm",
        submodelElements: [
          { modelType: "Property", idShort: "Note", valueType: "xs:string", value: "<b>bold</b> & more" },
          {
            modelType: "SubmodelElementList",
            idShort: "Empty",
            orderRelevant: false,
            typeValueListElement: "Property",
            value: [],
          },
        ],
      },
    ],
  });
  assert.deepEqual(parseAasXml(`<environment xmlns="${NS}"/>`), {});
});

test("special characters and surrounding whitespace are kept exactly", () => {
  const values = [
    `<&>"'`,
    "  leading and trailing  ",
    "tab\tnew\nline\r\ncarriage\rreturn",
    "]]> and &amp; literally",
    "Grüße, 日本語, 🚀, e\u0301",
    " ",
    "",
  ];
  const environment = {
    submodels: [
      {
        modelType: "Submodel",
        id: "urn:special",
        submodelElements: values.map((value, index) => ({
          modelType: "Property",
          idShort: `P${index}`,
          valueType: "xs:string",
          value,
        })),
      },
    ],
  };
  const xml = writeAasXml(environment);
  assert.match(xml, /<value>&lt;&amp;&gt;"'<\/value>/);
  assert.deepEqual(parseAasXml(xml), environment);
});

test("a value XML 1.0 cannot represent is refused with its path", () => {
  for (const bad of ["bell\u0007", "lone \uD800 surrogate", "\uFFFF"]) {
    const environment = { submodels: [{ modelType: "Submodel", id: "urn:x", idShort: bad }] };
    const error = assertAasError(() => writeAasXml(environment), "value", /XML 1\.0/);
    assert.equal(error.path, "submodels[0].idShort");
  }
});

test("the writer refuses properties the metamodel does not have", () => {
  const error = assertAasError(
    () => writeAasXml({ submodels: [{ modelType: "Submodel", id: "urn:x", colour: "red" }] }),
    "unknown-property",
    /colour/,
  );
  assert.equal(error.path, "submodels[0].colour");
});

test("an XXE payload is refused before any entity is resolved", () => {
  const xxe = `<?xml version="1.0"?>
<!DOCTYPE environment [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<environment xmlns="${NS}"><submodels><submodel><id>&secret;</id></submodel></submodels></environment>`;
  const error = assertAasError(() => parseAasXml(xxe), "syntax", /DOCTYPE/);
  assert.doesNotMatch(error.message, /root:/);
  assert.match(error.message, /2:\d+/);
});

test("a billion-laughs payload is refused at once", () => {
  const entities = ['<!ENTITY lol "lol">'];
  for (let level = 1; level <= 9; level++)
    entities.push(`<!ENTITY lol${level} "${`&lol${level === 1 ? "" : level - 1};`.repeat(10)}">`);
  const bomb = `<?xml version="1.0"?>\n<!DOCTYPE lolz [${entities.join("")}]>\n<environment xmlns="${NS}"><submodels><submodel><id>&lol9;</id></submodel></submodels></environment>`;
  const started = performance.now();
  assertAasError(() => parseAasXml(bomb), "syntax", /DOCTYPE/);
  assert.ok(performance.now() - started < 1000);
});

test("AAS v2.0 and v3.0 release-candidate XML are refused with a request to convert", () => {
  const v2 = `<?xml version="1.0" encoding="utf-8"?>
<aas:aasenv xmlns:aas="http://www.admin-shell.io/aas/2/0" xmlns:IEC="http://www.admin-shell.io/IEC61360/2/0">
  <aas:assetAdministrationShells><aas:assetAdministrationShell><aas:idShort>Old</aas:idShort>
  <aas:identification idType="IRI">urn:old</aas:identification></aas:assetAdministrationShell></aas:assetAdministrationShells>
</aas:aasenv>`;
  assertAasError(() => parseAasXml(v2), "syntax", /AAS v2\.0 format.*convert it to AAS v3\.0/);
  for (const namespace of ["https://admin-shell.io/aas/3/0/RC02", "http://www.admin-shell.io/aas/3/0/RC01"]) {
    const rc = `<environment xmlns="${namespace}"><submodels/></environment>`;
    assertAasError(
      () => parseAasXml(rc),
      "syntax",
      /release candidate RC0\d.*cannot be loaded unchanged.*convert it to AAS v3\.0/,
    );
  }
});

test("a wrong or missing namespace is refused", () => {
  assertAasError(
    () => parseAasXml(`<environment xmlns="urn:other"/>`),
    "syntax",
    /namespace urn:other.*https:\/\/admin-shell\.io\/aas\/3\/0/,
  );
  assertAasError(() => parseAasXml(`<environment/>`), "syntax", /has no namespace/);
  assertAasError(() => parseAasXml(`<submodel xmlns="${NS}"/>`), "syntax", /root element must be <environment>/);
  const foreignChild = `<environment xmlns="${NS}"><submodels xmlns="urn:other"/></environment>`;
  assertAasError(() => parseAasXml(foreignChild), "unknown-property", /not in the AAS v3\.0 namespace/);
});

test("unknown elements and attributes are refused with their path and position", () => {
  const xml = `<environment xmlns="${NS}">
  <submodels>
    <submodel>
      <id>urn:x</id>
      <submodelElements>
        <property><idShort>P</idShort><valueType>xs:int</valueType><colour>red</colour></property>
      </submodelElements>
    </submodel>
  </submodels>
</environment>`;
  const error = assertAasError(
    () => parseAasXml(xml),
    "unknown-property",
    /^Invalid AAS XML at 6:\d+: unknown <colour> in Property/,
  );
  assert.equal(error.path, "submodels[0].submodelElements[0].colour");

  const wrongItem = `<environment xmlns="${NS}"><submodels><submodel><id>x</id><submodelElements><key/></submodelElements></submodel></submodels></environment>`;
  const itemError = assertAasError(
    () => parseAasXml(wrongItem),
    "unknown-property",
    /<key> where <relationshipElement>, .* is expected/,
  );
  assert.equal(itemError.path, "submodels[0].submodelElements[0]");

  const attribute = `<environment xmlns="${NS}"><submodels><submodel id="urn:x"/></submodels></environment>`;
  assertAasError(() => parseAasXml(attribute), "unknown-property", /attribute id on <submodel>/);
  const inText = `<environment xmlns="${NS}"><submodels><submodel><id>a<b/></id></submodel></submodels></environment>`;
  assertAasError(() => parseAasXml(inText), "unknown-property", /<b> inside id/);
});

test("malformed documents, stray text, duplicates and bad booleans are syntax errors with a position", () => {
  assertAasError(
    () => parseAasXml(`<environment xmlns="${NS}">\n<submodels>\n</environment>`),
    "syntax",
    /Invalid XML: 3:\d+/,
  );
  assertAasError(() => parseAasXml(""), "syntax", /Invalid XML/);
  const stray = `<environment xmlns="${NS}"><submodels>text</submodels></environment>`;
  assertAasError(() => parseAasXml(stray), "syntax", /unexpected text "text"/);
  const twice = `<environment xmlns="${NS}"><submodels><submodel><id>a</id><id>b</id></submodel></submodels></environment>`;
  const duplicate = assertAasError(() => parseAasXml(twice), "syntax", /<id> appears twice/);
  assert.equal(duplicate.path, "submodels[0].id");
  const flag = `<environment xmlns="${NS}"><submodels><submodel><id>a</id><submodelElements><submodelElementList><orderRelevant>yes</orderRelevant></submodelElementList></submodelElements></submodel></submodels></environment>`;
  assertAasError(() => parseAasXml(flag), "deserialization", /must be an xs:boolean/);
  const emptyChoice = `<environment xmlns="${NS}"><conceptDescriptions><conceptDescription><id>a</id><embeddedDataSpecifications><embeddedDataSpecification><dataSpecificationContent/></embeddedDataSpecification></embeddedDataSpecifications></conceptDescription></conceptDescriptions></environment>`;
  assertAasError(() => parseAasXml(emptyChoice), "syntax", /needs one of <dataSpecificationIec61360>/);
});

test("a 5 MB document parses in reasonable time", () => {
  const elements: Json[] = [];
  for (let index = 0; index < 8_000; index++) {
    elements.push({
      modelType: "Property",
      idShort: `P${index}`,
      description: [{ language: "en", text: `property number ${index}` }],
      semanticId: {
        type: "ExternalReference",
        keys: [{ type: "GlobalReference", value: `urn:example:semantic:${index}` }],
      },
      valueType: "xs:string",
      value: `value ${index} `.repeat(4),
    });
  }
  const environment = { submodels: [{ modelType: "Submodel", id: "urn:big", submodelElements: elements }] };
  const xml = writeAasXml(environment);
  assert.ok(xml.length > 5_000_000, `${xml.length} characters`);
  const started = performance.now();
  const parsed = parseAasXml(xml);
  const elapsed = performance.now() - started;
  assert.deepEqual(parsed, environment);
  assert.ok(elapsed < 5000, `parsing took ${Math.round(elapsed)} ms`);
});

test("a streamed identifiable longer than maxItemChars is refused as it is read, before it is held whole", () => {
  const items: unknown[] = [];
  const reader = createAasXmlReader((item) => items.push(item), { maxItemChars: 1000 });
  const ns = "https://admin-shell.io/aas/3/0";
  reader.write(
    `<environment xmlns="${ns}"><conceptDescriptions><conceptDescription><id>urn:a</id></conceptDescription>`,
  );
  reader.write("<conceptDescription><id>urn:b</id><idShort>");
  assert.equal(items.length, 1);
  assert.throws(
    () => {
      // 100,000 characters of one text node, in writes of 100: refused after the first thousand.
      for (let i = 0; i < 1_000; i++) reader.write("x".repeat(100));
    },
    (error: AasError) =>
      error.kind === "too-large" &&
      /^conceptDescriptions\[1\] is longer than 1000 characters, .*\(core\.importMaxIdentifiableSize\)$/.test(
        error.message,
      ),
  );
  // A whole identifiable within one write is measured too.
  const whole = createAasXmlReader(() => undefined, { maxItemChars: 1000 });
  assert.throws(
    () =>
      whole.write(
        `<environment xmlns="${ns}"><conceptDescriptions><conceptDescription><id>${"x".repeat(2000)}</id></conceptDescription></conceptDescriptions></environment>`,
      ),
    /conceptDescriptions\[0\] is longer than 1000 characters/,
  );
});

test("more than 1 MiB of indentation between tags is refused as it is read; a long value is not", () => {
  const ns = "https://admin-shell.io/aas/3/0";
  const items: unknown[] = [];
  // Between identifiables, where the identifiable limit does not count (400 MiB was held whole).
  const between = createAasXmlReader((item) => items.push(item));
  between.write(`<environment xmlns="${ns}"><submodels>`);
  assert.throws(
    () => {
      for (let i = 0; i < 40; i++) between.write(" ".repeat(64 * 1024));
    },
    (error: AasError) => error.kind === "syntax" && /more than 1024 KiB of text between two tags/.test(error.message),
  );
  // Inside an identifiable, between its elements, and without streaming.
  assert.throws(
    () =>
      parseAasXml(
        `<environment xmlns="${ns}"><submodels><submodel>${" ".repeat(1_100_000)}<id>urn:a</id></submodel></submodels></environment>`,
      ),
    /more than 1024 KiB of text between two tags/,
  );
  // A value longer than that is a value: read whole, streamed or not.
  const long = "v".repeat(2_000_000);
  const document = `<environment xmlns="${ns}"><submodels>\n  <submodel><id>urn:long</id><idShort>L</idShort><submodelElements><property><idShort>P</idShort><valueType>xs:string</valueType><value>${long}</value></property></submodelElements></submodel>\n</submodels></environment>`;
  const parsed = parseAasXml(document) as { submodels: { submodelElements: { value: string }[] }[] };
  assert.equal(parsed.submodels[0]!.submodelElements[0]!.value.length, long.length);
  const streamed: { submodelElements: { value: string }[] }[] = [];
  const reader = createAasXmlReader((item) => streamed.push(item.value as never));
  for (let at = 0; at < document.length; at += 100_000) reader.write(document.slice(at, at + 100_000));
  reader.end();
  assert.equal(streamed[0]!.submodelElements[0]!.value.length, long.length);
});
