import { realpathSync } from "node:fs";
import { posix } from "node:path";
import { formatConfigPath } from "./config-error.ts";
import { isOpcUaEndpoint } from "./endpoints.ts";
import { FILE_STORAGE_FILESYSTEM_CLASS } from "./file-storage.ts";
import type { TwinportConfig } from "./validate-config.ts";

/**
 * /proc and /sys are the kernel's views, not folders anything can be stored in. Worse, Node's
 * recursive mkdir (sync and async) loops forever under /proc, where the kernel answers ENOENT for a
 * new folder whose parent exists: a `fileStorage.path` of `/proc/1/x` hung the start with no line.
 * The folders Twinport makes from settings are refused there before anything starts, where the
 * kernel would find them: a relative path from the working folder (`proc/x` run from `/`), through
 * the symbolic links of its existing part (a link to /proc), which hung the start as well.
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
    const normalized = whereTheKernelFinds(path);
    const root = KERNEL_FILE_SYSTEMS.find((kernel) => normalized === kernel || normalized.startsWith(`${kernel}/`));
    if (root !== undefined)
      issues.push(
        `Invalid value at '${formatConfigPath(setting)}': '${path}' is under ${root}, the kernel's view of processes and devices, where no folder can be made or file kept; choose a folder on a disk or volume${origin(setting)}`,
      );
  }
  return issues;
}

/** The path resolved from the working folder, its longest existing part through its symbolic links. */
function whereTheKernelFinds(path: string): string {
  const absolute = posix.resolve(path);
  const missing: string[] = [];
  for (let existing = absolute; ; existing = posix.dirname(existing)) {
    try {
      return posix.join(realpathSync(existing), ...missing.reverse());
    } catch {
      // Not there (yet), or not readable: its parent decides.
      if (existing === "/") return absolute;
      missing.push(posix.basename(existing));
    }
  }
}
