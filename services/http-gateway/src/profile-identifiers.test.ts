import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PROFILE_IDENTIFIERS, servedProfileIdentifiers } from "./profile-identifiers.ts";
import { PROFILE_NAMES } from "./profiles.ts";

const API = "https://admin-shell.io/aas/API/3/0";
const ops = (...profiles: string[][]) => profiles.map((p) => ({ profiles: p }));

describe("profile identifiers for /description", () => {
  it("maps every configurable profile name; full profiles claim their read profile", () => {
    assert.deepEqual(Object.keys(PROFILE_IDENTIFIERS).sort(), [...PROFILE_NAMES].sort());
    assert.deepEqual(PROFILE_IDENTIFIERS.AAS_REPOSITORY_FULL, [
      `${API}/AssetAdministrationShellRepositoryServiceSpecification/SSP-001`,
      `${API}/AssetAdministrationShellRepositoryServiceSpecification/SSP-002`,
    ]);
    assert.deepEqual(
      PROFILE_IDENTIFIERS.CONCEPT_DESCRIPTION_FULL,
      [`${API}/ConceptDescriptionServiceSpecification/SSP-001`],
      "the v3.0.1 enum spelling",
    );
    assert.deepEqual(PROFILE_IDENTIFIERS.FAAAST_RESET, []);
  });

  it("claims only profiles with a served operation, in the enum's order, each once", () => {
    const served = ops(["AAS_REPOSITORY_FULL", "AAS_REPOSITORY_READ"], ["DISCOVERY_FULL"], ["AAS_REPOSITORY_FULL"]);
    assert.deepEqual(servedProfileIdentifiers(served, []), [
      `${API}/DiscoveryServiceSpecification/SSP-001`,
      `${API}/AssetAdministrationShellRepositoryServiceSpecification/SSP-001`,
      `${API}/AssetAdministrationShellRepositoryServiceSpecification/SSP-002`,
    ]);
    assert.deepEqual(servedProfileIdentifiers(served, ["AAS_REPOSITORY_READ"]), [
      `${API}/AssetAdministrationShellRepositoryServiceSpecification/SSP-002`,
    ]);
    assert.deepEqual(
      servedProfileIdentifiers(served, ["AASX_FILE_SERVER_FULL"]),
      [],
      "configured but not implemented: not claimed",
    );
    assert.deepEqual(servedProfileIdentifiers(served, ["FAAAST_RESET", "DISCOVERY_FULL"]), [
      `${API}/DiscoveryServiceSpecification/SSP-001`,
    ]);
  });
});
