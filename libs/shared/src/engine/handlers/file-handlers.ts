import type { Command, CommandResult, FileCommandMap } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { deletePackage, getAllPackages, getPackage, postPackage, putPackage } from "./aasx-packages.ts";
import { deleteFileByPath, getFileByPath, putFileByPath } from "./attachments.ts";
import type { Handled } from "./handled.ts";
import { importEnvironment } from "./import-environment.ts";
import { resetStore } from "./reset.ts";
import { generateSerialization } from "./serialization.ts";
import { deleteThumbnail, getThumbnail, putThumbnail } from "./thumbnail.ts";

type Handler<T extends keyof FileCommandMap> = (
  ctx: EngineContext,
  command: Command<T>,
) => Promise<Handled<CommandResult<T>>>;

/** Handlers of the file, format and package commands (contracts/file-commands.ts). */
export const FILE_HANDLERS: { [T in keyof FileCommandMap]: Handler<T> } = {
  GetFileByPath: getFileByPath,
  PutFileByPath: putFileByPath,
  DeleteFileByPath: deleteFileByPath,
  GetThumbnail: getThumbnail,
  PutThumbnail: putThumbnail,
  DeleteThumbnail: deleteThumbnail,
  GenerateSerializationByIds: generateSerialization,
  ImportEnvironment: importEnvironment,
  ResetStore: resetStore,
  GetAllAASXPackageIds: getAllPackages,
  GetAASXByPackageId: getPackage,
  PostAASXPackage: postPackage,
  PutAASXByPackageId: putPackage,
  DeleteAASXByPackageId: deletePackage,
};
