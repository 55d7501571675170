import { posix } from "node:path";
import { formatConfigPath } from "./config-error.ts";
import { isOpcUaEndpoint } from "./endpoints.ts";
import { FILE_STORAGE_FILESYSTEM_CLASS } from "./file-storage.ts";
import type { TwinportConfig } from "./validate-config.ts";

/**
 * /proc and /sys are the kernel's views, not folders anything can be stored in. Worse, Node's
 * recursive mkdir (sync and async) loops forever under /proc, where the kernel answers ENOENT for a
 * new folder whose parent exists: a `fileStorage.path` of `/proc/1/x` hung the start with no line.
 * The folders Twinport makes from settings are refused there before anything starts. Absolute
 * paths only: a relative one is under /proc only when the process runs there.
 */
const KERNEL_FILE_SYSTEMS = ["/proc", "/sys"];

/** `origin`: where an overridden setting's value came from, e.g. " (from the command line)". */
export function kernelFolderIssues(config: TwinportConfig, origin: (setting: PropertyKey[]) => string): string[] {
  const folders: [setting: PropertyKey[], path: string][] = [[["core", "stateDir"], config.core.stateDir]];
  // Its default lies in core.stateDir, which is named already.
  if (
    config.fileStorage["@class"] === FILE_STORAGE_FILESYSTEM_CLASS &&
    config.fileStorage.path !== `${config.core.stateDir}/files`
  )
    folders.push([["fileStorage", "path"], config.fileStorage.path]);
  config.endpoints.forEach((endpoint, index) => {
    if (!isOpcUaEndpoint(endpoint)) return;
    folders.push([["endpoints", index, "serverCertificateBasePath"], endpoint.serverCertificateBasePath]);
    folders.push([["endpoints", index, "userCertificateBasePath"], endpoint.userCertificateBasePath]);
  });
  const issues: string[] = [];
  for (const [setting, path] of folders) {
    if (!posix.isAbsolute(path)) continue;
    const normalized = posix.normalize(path);
    const root = KERNEL_FILE_SYSTEMS.find((kernel) => normalized === kernel || normalized.startsWith(`${kernel}/`));
    if (root !== undefined)
      issues.push(
        `Invalid value at '${formatConfigPath(setting)}': '${path}' is under ${root}, the kernel's view of processes and devices, where no folder can be made or file kept; choose a folder on a disk or volume${origin(setting)}`,
      );
  }
  return issues;
}
