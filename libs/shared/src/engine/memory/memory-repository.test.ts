import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { repositoryContract } from "../../test-support/repository-contract.ts";
import { createMemoryRepository } from "./memory-repository.ts";

repositoryContract("memory", async () => createMemoryRepository());

describe("memory repository", () => {
  it("never shares mutable objects with its callers", async () => {
    const repo = createMemoryRepository();
    await repo.commit({
      preconditions: [],
      ops: [
        { op: "put-identifiable", kind: "submodel", id: "sm", json: "{}" },
        { op: "put-element", submodelId: "sm", path: "a", json: '{"a":1}', insert: { parentPath: "", segment: "a" } },
      ],
      event: { kind: "submodel.created", id: "sm", time: "2026-01-01T00:00:00.000Z" },
    });
    const [element] = await repo.getElements("sm", ["a"]);
    element!.json = "changed";
    element!.revision = 99;
    const identifiable = await repo.getIdentifiable("submodel", "sm");
    identifiable!.json = "changed";
    const [again] = await repo.getSubtree("sm", "");
    assert.equal(again.json, '{"a":1}');
    assert.equal(again.revision, 1);
    assert.equal((await repo.getIdentifiable("submodel", "sm"))?.json, "{}");
  });

  it("is atomic: commits started together each see the other's effect or none", async () => {
    const repo = createMemoryRepository();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        repo.commit({
          preconditions: [{ on: "identifiable", kind: "shell", id: "s", revision: null }],
          ops: [{ op: "put-identifiable", kind: "shell", id: "s", json: "{}" }],
          event: { kind: "shell.created", id: "s", time: "2026-01-01T00:00:00.000Z" },
        }),
      ),
    );
    assert.equal(results.filter((r) => r.ok).length, 1);
    assert.equal(await repo.currentSeq(), 1);
  });
});
