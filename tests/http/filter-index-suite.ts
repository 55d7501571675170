/**
 * Black-box suite of filtered lists answered from the filter index (docs/adr/0035), embedded and
 * distributed: every filter of /shells, /lookup/shells, /submodels and /concept-descriptions gives
 * what checking every item would (computed here from the unfiltered list), paged with cursors, and
 * stays right through writes of the indexed fields and between pages.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { b64, type HttpClient } from "../test-support/http-client.ts";
import { type Mode, type SystemUnderTest, startSystem } from "../test-support/system.ts";
import { paged } from "./shell-suite-support.ts";

type Json = Record<string, any>;
const json = (value: unknown) => ({ body: JSON.stringify(value) });
const link = (name: string, value: string) => ({ name, value });
const assetIdsParam = (...links: { name: string; value: string }[]) =>
  links.map((l) => `assetIds=${b64(JSON.stringify(l))}`).join("&");
const reference = (type: string, ...values: string[]) => ({
  type,
  keys: values.map((value) => ({ type: "GlobalReference", value })),
});
/** An ExternalReference whose last key is a fragment: same key values, other key type. */
const fragmentReference = (first: string, fragment: string) => ({
  type: "ExternalReference",
  keys: [
    { type: "GlobalReference", value: first },
    { type: "FragmentReference", value: fragment },
  ],
});

function shell(i: number): Json {
  return {
    modelType: "AssetAdministrationShell",
    id: `urn:idx:shell:${i}`,
    idShort: `Kind${i % 3}`,
    assetInformation: {
      assetKind: "Instance",
      globalAssetId: `urn:idx:asset:${i}`,
      specificAssetIds: [link("line", `L${i % 2}`), link("serial", `SN-${i}`)],
    },
  };
}

function submodel(i: number): Json {
  return {
    modelType: "Submodel",
    id: `urn:idx:sm:${i}`,
    idShort: `Part${i % 2}`,
    semanticId:
      i % 3 === 0
        ? fragmentReference("urn:sem:a", `urn:sem:v${i % 2}`)
        : reference("ExternalReference", "urn:sem:a", `urn:sem:v${i % 2}`),
  };
}

function conceptDescription(i: number): Json {
  return {
    modelType: "ConceptDescription",
    id: `urn:idx:cd:${i}`,
    idShort: `Cd${i % 2}`,
    isCaseOf: [reference("ExternalReference", `urn:case:${i % 3}`)],
    embeddedDataSpecifications:
      i % 2 === 0
        ? [
            {
              dataSpecification: reference("ExternalReference", "urn:ds:iec61360"),
              dataSpecificationContent: {
                modelType: "DataSpecificationIec61360",
                preferredName: [{ language: "en", text: `cd ${i}` }],
                definition: [{ language: "en", text: `concept ${i}` }],
              },
            },
          ]
        : undefined,
  };
}

/** Every item of a paged list, following cursors with small pages (and checking none repeats). */
async function all(http: HttpClient, path: string, limit = 2, from?: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined = from;
  const sep = path.includes("?") ? "&" : "?";
  do {
    const page = paged(
      await http.get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
    );
    items.push(...page.result);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return items;
}

const idsOf = (items: Json[]) => items.map((item) => item.id);

export function filterIndexSuite(mode: Mode): void {
  describe(`Filtered lists from the index, ${mode} mode`, () => {
    let sut: SystemUnderTest;
    let http: HttpClient;
    let other: HttpClient;
    before(async () => {
      sut = await startSystem(mode, { models: [] });
      http = sut.clients[0]!;
      other = sut.clients[sut.clients.length - 1]!;
      for (let i = 0; i < 9; i++) {
        for (const [path, body] of [
          ["/shells", shell(i)],
          ["/submodels", submodel(i)],
          ["/concept-descriptions", conceptDescription(i)],
        ] as const) {
          const res = await http.request("POST", path, json(body));
          assert.equal(res.status, 201, res.text);
        }
      }
    });
    after(async () => {
      await sut?.stop();
    });

    test("/shells and /lookup/shells: idShort and assetIds give what a scan gives, in order, over cursors", async () => {
      const shells = await all(http, "/shells", 100);
      assert.equal(shells.length, 9);
      const has = (s: Json, l: { name: string; value: string }) =>
        (l.name === "globalAssetId" && s.assetInformation.globalAssetId === l.value) ||
        (s.assetInformation.specificAssetIds ?? []).some((x: Json) => x.name === l.name && x.value === l.value);
      const cases: { query: string; keep: (s: Json) => boolean }[] = [
        { query: "idShort=Kind1", keep: (s) => s.idShort === "Kind1" },
        { query: "idShort=NoSuch", keep: () => false },
        { query: assetIdsParam(link("line", "L0")), keep: (s) => has(s, link("line", "L0")) },
        { query: assetIdsParam(link("globalAssetId", "urn:idx:asset:4")), keep: (s) => s.id === "urn:idx:shell:4" },
        {
          query: assetIdsParam(link("line", "L1"), link("serial", "SN-3")),
          keep: (s) => has(s, link("line", "L1")) && has(s, link("serial", "SN-3")),
        },
        { query: assetIdsParam(link("line", "L1"), link("serial", "SN-4")), keep: () => false },
        // A link name of another value: the index term differs, nothing matches.
        { query: assetIdsParam(link("serial", "L0")), keep: () => false },
        {
          query: `idShort=Kind0&${assetIdsParam(link("line", "L0"))}`,
          keep: (s) => s.idShort === "Kind0" && has(s, link("line", "L0")),
        },
      ];
      for (const { query, keep } of cases) {
        const expected = idsOf(shells.filter(keep));
        assert.deepEqual(idsOf(await all(http, `/shells?${query}`)), expected, query);
        assert.deepEqual(idsOf(await all(other, `/shells?${query}`, 1)), expected, query);
        if (query.startsWith("assetIds"))
          assert.deepEqual(await all(other, `/lookup/shells?${query}`), expected, `lookup ${query}`);
      }
      // A page of one with nothing to find answers at once, with no cursor.
      assert.deepEqual(paged(await http.get("/shells?idShort=NoSuch&limit=1")), { result: [], cursor: undefined });
    });

    test("/submodels: idShort and semanticId (key value or whole Reference) give what a scan gives", async () => {
      const submodels = await all(http, "/submodels", 100);
      assert.equal(submodels.length, 9);
      const keyValue = (value: string) => (s: Json) => s.semanticId.keys.some((k: Json) => k.value === value);
      const exact = (r: Json) => (s: Json) => JSON.stringify(s.semanticId) === JSON.stringify(r);
      const whole = reference("ExternalReference", "urn:sem:a", "urn:sem:v1");
      const cases: { query: string; keep: (s: Json) => boolean }[] = [
        { query: "idShort=Part0", keep: (s) => s.idShort === "Part0" },
        { query: `semanticId=${b64("urn:sem:v1")}`, keep: keyValue("urn:sem:v1") },
        { query: `semanticId=${b64("urn:sem:a")}`, keep: keyValue("urn:sem:a") },
        { query: `semanticId=${b64(JSON.stringify(whole))}`, keep: exact(whole) },
        // Same key values, other key or reference type: the index finds candidates, the exact check
        // keeps only the equal ones.
        {
          query: `semanticId=${b64(JSON.stringify(fragmentReference("urn:sem:a", "urn:sem:v1")))}`,
          keep: exact(fragmentReference("urn:sem:a", "urn:sem:v1")),
        },
        { query: `semanticId=${b64(JSON.stringify({ ...whole, type: "ModelReference" }))}`, keep: () => false },
        {
          query: `semanticId=${b64(JSON.stringify(reference("ExternalReference", "urn:sem:v1", "urn:sem:a")))}`,
          keep: () => false,
        },
        {
          query: `idShort=Part1&semanticId=${b64("urn:sem:v1")}`,
          keep: (s) => s.idShort === "Part1" && keyValue("urn:sem:v1")(s),
        },
      ];
      for (const { query, keep } of cases) {
        const expected = idsOf(submodels.filter(keep));
        assert.deepEqual(idsOf(await all(http, `/submodels?${query}`)), expected, query);
        assert.deepEqual(idsOf(await all(other, `/submodels?${query}&level=core`, 1)), expected, query);
      }
      assert.ok(idsOf(submodels.filter(exact(whole))).length > 0, "the whole-Reference case finds something");
    });

    test("/submodels/$path: the paths of the submodels the filter finds, paged by path", async () => {
      for (const [i, idShort] of [
        [1, "A"],
        [3, "B"],
        [4, "C"],
      ] as const) {
        const body = { modelType: "Property", idShort, valueType: "xs:string", value: "x" };
        const res = await http.request("POST", `/submodels/${b64(`urn:idx:sm:${i}`)}/submodel-elements`, json(body));
        assert.equal(res.status, 201, res.text);
      }
      assert.deepEqual(await all(other, "/submodels/$path?idShort=Part1", 1), ["A", "B"]);
      assert.deepEqual(await all(other, `/submodels/$path?semanticId=${b64("urn:sem:v0")}`, 1), ["C"]);
      assert.deepEqual(await all(other, "/submodels/$path?idShort=NoSuch", 1), []);
    });

    test("/concept-descriptions: idShort, isCaseOf and dataSpecificationRef give what a scan gives", async () => {
      const cds = await all(http, "/concept-descriptions", 100);
      assert.equal(cds.length, 9);
      const caseOf = (value: string) => (c: Json) =>
        c.isCaseOf.some((r: Json) => r.keys.some((k: Json) => k.value === value));
      const iec = (c: Json) => (c.embeddedDataSpecifications ?? []).length > 0;
      const cases: { query: string; keep: (c: Json) => boolean }[] = [
        { query: "idShort=Cd1", keep: (c) => c.idShort === "Cd1" },
        { query: `isCaseOf=${b64("urn:case:2")}`, keep: caseOf("urn:case:2") },
        {
          query: `isCaseOf=${b64(JSON.stringify(reference("ExternalReference", "urn:case:0")))}`,
          keep: caseOf("urn:case:0"),
        },
        { query: `dataSpecificationRef=${b64("urn:ds:iec61360")}`, keep: iec },
        {
          query: `dataSpecificationRef=${b64("urn:ds:iec61360")}&isCaseOf=${b64("urn:case:1")}`,
          keep: (c) => iec(c) && caseOf("urn:case:1")(c),
        },
      ];
      for (const { query, keep } of cases) {
        const expected = idsOf(cds.filter(keep));
        assert.deepEqual(idsOf(await all(http, `/concept-descriptions?${query}`)), expected, query);
        assert.deepEqual(idsOf(await all(other, `/concept-descriptions?${query}`, 1)), expected, query);
      }
    });

    test("writes between pages: no repeats, no skips; changed idShorts, semanticIds and asset links are found at once", async () => {
      const first = paged(await http.get("/shells?idShort=Kind2&limit=1"));
      assert.deepEqual(idsOf(first.result), ["urn:idx:shell:2"]);
      // Before the next page: shell 5 (Kind2, not yet read) becomes Kind0, shell 7 becomes Kind2,
      // shell 8 (Kind2) goes, and a new Kind2 shell comes after all.
      const put = await http.request(
        "PUT",
        `/shells/${b64("urn:idx:shell:5")}`,
        json({ ...shell(5), idShort: "Kind0" }),
      );
      assert.equal(put.status, 204, put.text);
      const put7 = await http.request(
        "PUT",
        `/shells/${b64("urn:idx:shell:7")}`,
        json({ ...shell(7), idShort: "Kind2" }),
      );
      assert.equal(put7.status, 204, put7.text);
      assert.equal((await http.request("DELETE", `/shells/${b64("urn:idx:shell:8")}`)).status, 204);
      assert.equal((await http.request("POST", "/shells", json({ ...shell(20), idShort: "Kind2" }))).status, 201);
      const rest = await all(other, "/shells?idShort=Kind2", 1, first.cursor);
      assert.deepEqual(idsOf(rest), ["urn:idx:shell:7", "urn:idx:shell:20"]);
      assert.deepEqual(idsOf(await all(other, "/shells?idShort=Kind0")), [
        "urn:idx:shell:0",
        "urn:idx:shell:3",
        "urn:idx:shell:5",
        "urn:idx:shell:6",
      ]);

      // Asset links written through the discovery API move the shell in both lists.
      const posted = await http.request(
        "POST",
        `/lookup/shells/${b64("urn:idx:shell:1")}`,
        json([link("serial", "SN-new")]),
      );
      assert.equal(posted.status, 201, posted.text);
      const bySerial = (value: string) => assetIdsParam(link("serial", value));
      assert.deepEqual(await all(other, `/lookup/shells?${bySerial("SN-new")}`), ["urn:idx:shell:1"]);
      assert.deepEqual(await all(other, `/lookup/shells?${bySerial("SN-1")}`), []);
      assert.deepEqual(idsOf(await all(other, `/shells?${bySerial("SN-new")}`)), ["urn:idx:shell:1"]);
      assert.equal((await http.request("DELETE", `/lookup/shells/${b64("urn:idx:shell:1")}`)).status, 204);
      assert.deepEqual(await all(other, `/lookup/shells?${bySerial("SN-new")}`), []);
      assert.deepEqual(
        await all(other, `/lookup/shells?${assetIdsParam(link("globalAssetId", "urn:idx:asset:1"))}`),
        [],
      );

      // A submodel's semanticId changed by PUT: found under the new value only.
      const changed = { ...submodel(4), semanticId: reference("ExternalReference", "urn:sem:changed") };
      assert.equal((await http.request("PUT", `/submodels/${b64("urn:idx:sm:4")}`, json(changed))).status, 204);
      assert.deepEqual(idsOf(await all(other, `/submodels?semanticId=${b64("urn:sem:changed")}`)), ["urn:idx:sm:4"]);
      assert.ok(!idsOf(await all(other, `/submodels?semanticId=${b64("urn:sem:a")}`)).includes("urn:idx:sm:4"));
      // A concept description's idShort changed: the same.
      const cd = { ...conceptDescription(3), idShort: "Renamed" };
      assert.equal((await http.request("PUT", `/concept-descriptions/${b64("urn:idx:cd:3")}`, json(cd))).status, 204);
      assert.deepEqual(idsOf(await all(other, "/concept-descriptions?idShort=Renamed")), ["urn:idx:cd:3"]);
      assert.ok(!idsOf(await all(other, "/concept-descriptions?idShort=Cd1")).includes("urn:idx:cd:3"));
    });
  });
}
