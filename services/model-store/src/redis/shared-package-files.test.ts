import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import {
  type Command,
  type CommandResult,
  type CommandType,
  createEngine,
  createInProcessEventBus,
  type Engine,
  type FileStore,
  type Reply,
  writeAasx,
} from "@twinport/shared";
import { startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisFileStore } from "./file-store-redis.ts";
import { createRedisRepository } from "./redis-repository.ts";

/**
 * A file several packages share (docs/adr/0051) on the Redis FileStore, with two engines on one
 * Redis as two model-store replicas: deletes and posts of those packages overlapping must neither
 * leave the file behind, owned by nothing, nor move a package's identical file aside.
 */
const server = await startRedis();
after(() => server.stop());
let n = 0;

const MANUAL = "/aasx/files/manual6.pdf";
const MANUAL_BYTES = Buffer.alloc(3000, "manual six");

/** Package `name`: its own shell and submodel, whose File names the manual, and the manual itself. */
function aasx(name: string): string {
  const id = `urn:pkg:${name}`;
  return Buffer.from(
    writeAasx({
      environment: {
        assetAdministrationShells: [
          {
            modelType: "AssetAdministrationShell",
            id,
            idShort: name,
            assetInformation: { assetKind: "Instance", globalAssetId: `${id}/asset` },
            submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: `${id}/sm` }] }],
          },
        ],
        submodels: [
          {
            modelType: "Submodel",
            id: `${id}/sm`,
            submodelElements: [{ modelType: "File", idShort: "Manual", contentType: "application/pdf", value: MANUAL }],
          },
        ],
      },
      files: [{ path: MANUAL, contentType: "application/pdf", bytes: MANUAL_BYTES }],
    }),
  ).toString("base64");
}

interface Replica {
  engine: Engine;
  files: FileStore;
  close(): Promise<void>;
}

async function replicas(count: number): Promise<Replica[]> {
  const keyPrefix = `shared-files-${++n}`;
  const made: Replica[] = [];
  for (let i = 0; i < count; i++) {
    const repository = await createRedisRepository({ url: server.url, keyPrefix });
    const files = await createRedisFileStore({ url: server.url, keyPrefix });
    const bus = createInProcessEventBus();
    const engine = createEngine({ repository, bus, fileStore: files });
    made.push({
      engine,
      files,
      close: async () => {
        await engine.close();
        await files.close();
        await repository.close();
        await bus.close?.();
      },
    });
  }
  return made;
}

function run<T extends CommandType>(
  replica: Replica,
  type: T,
  params: Command<T>["params"],
): Promise<Reply<CommandResult<T>>> {
  return replica.engine.execute({ type, params, origin: "test" } as Command<T>);
}

async function post(replica: Replica, name: string): Promise<Reply<CommandResult<"PostAASXPackage">>> {
  return await run(replica, "PostAASXPackage", { file: { fileName: `${name}.aasx`, contentBase64: aasx(name) } });
}

async function packageIds(replica: Replica): Promise<string[]> {
  const reply = await run(replica, "GetAllAASXPackageIds", {});
  assert.ok(reply.ok);
  return reply.value.items.map((item) => item.packageId);
}

async function manualOf(replica: Replica, name: string): Promise<string> {
  const reply = await run(replica, "GetSubmodelElementByPath", {
    submodelId: `urn:pkg:${name}/sm`,
    idShortPath: "Manual",
  });
  assert.ok(reply.ok, JSON.stringify(!reply.ok && reply.error));
  return (reply.value as { value: string }).value;
}

/** The model's files in the store (not the packages and their records). */
async function storedFiles(replica: Replica): Promise<string[]> {
  return (await replica.files.list("/")).map((info) => info.path);
}

const NAMES = ["p", "q", "r", "s"];

describe("a file shared by packages, on Redis, with two replicas", () => {
  it("packages posted at once share the one file; deleted at once, they leave nothing behind", async () => {
    const [a, b] = await replicas(2);
    try {
      const posted = await Promise.all(NAMES.map((name, i) => post(i % 2 === 0 ? a! : b!, name)));
      assert.ok(
        posted.every((reply) => reply.ok),
        JSON.stringify(posted.filter((reply) => !reply.ok)),
      );
      // Identical bytes share the path: none of them moved aside.
      for (const name of NAMES) assert.equal(await manualOf(a!, name), MANUAL, name);
      assert.deepEqual(await storedFiles(a!), [MANUAL]);

      const ids = await packageIds(a!);
      const deleted = await Promise.all(
        ids.map((packageId, i) => run(i % 2 === 0 ? b! : a!, "DeleteAASXByPackageId", { packageId })),
      );
      assert.ok(
        deleted.every((reply) => reply.ok),
        JSON.stringify(deleted.filter((reply) => !reply.ok)),
      );
      assert.deepEqual(await packageIds(a!), []);
      assert.deepEqual(await storedFiles(a!), [], "no package holds the manual any more");
    } finally {
      await a!.close();
      await b!.close();
    }
  });

  it("deletes and new posts of the same packages overlapping: the new ones share the file, and it goes with the last", async () => {
    const [a, b] = await replicas(2);
    try {
      for (const reply of await Promise.all(NAMES.map((name, i) => post(i % 2 === 0 ? a! : b!, name))))
        assert.ok(reply.ok);
      const old = await packageIds(a!);
      // A post may find its ids still held by the package being deleted (409): only the answer to it differs.
      const outcomes = await Promise.all([
        ...old.map((packageId, i) => run(i % 2 === 0 ? a! : b!, "DeleteAASXByPackageId", { packageId })),
        ...NAMES.map((name, i) => post(i % 2 === 0 ? b! : a!, name)),
      ]);
      for (const reply of outcomes) assert.ok(reply.ok || reply.error.code === "conflict", JSON.stringify(reply));
      const reposted = NAMES.filter((_, i) => outcomes[old.length + i]!.ok);
      for (const name of reposted) assert.equal(await manualOf(b!, name), MANUAL, `${name} shares the manual`);
      assert.deepEqual(await storedFiles(a!), reposted.length > 0 ? [MANUAL] : []);
      for (const packageId of await packageIds(a!)) {
        const reply = await run(b!, "DeleteAASXByPackageId", { packageId });
        assert.ok(reply.ok, JSON.stringify(reply));
      }
      assert.deepEqual(await storedFiles(a!), [], "the manual went with the last package");
      // A package posted afterwards takes the path again.
      assert.ok((await post(a!, "p")).ok);
      assert.equal(await manualOf(a!, "p"), MANUAL);
    } finally {
      await a!.close();
      await b!.close();
    }
  });
});
