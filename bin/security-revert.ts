// The OPC UA policy BASIC128RSA15 needs RSA PKCS#1 v1.5 decryption, which Node 20 refuses since
// CVE-2023-46809 (the Marvin attack) unless node itself starts with --security-revert, a flag Node
// does not accept inside NODE_OPTIONS. So when the configuration asks for that policy, the launcher
// runs the same command again in a node started with the flag.
// Node 24 with its bundled OpenSSL (3.2 or later) decrypts PKCS#1 v1.5 with implicit rejection,
// which defeats that attack, and no longer knows the flag at all (node exits with "Attempt to
// revert an unknown CVE"): so the re-run happens only where this process itself refuses the
// decryption, which a runtime that still needs the flag does.
import { spawn } from "node:child_process";
import { constants as cryptoConstants, generateKeyPairSync, privateDecrypt, publicEncrypt } from "node:crypto";
import { constants } from "node:os";
import { isOpcUaEndpoint, loadConfig, parseCommandLine, roleOf } from "@twinport/shared";

export const SECURITY_REVERT_FLAG = "--security-revert=CVE-2023-46809";

/** Whether the configuration this command line selects serves BASIC128RSA15 on an OPC UA endpoint. */
export function selectsBasic128Rsa15(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  const role = roleOf(argv);
  if (role !== "embedded" && role !== "opcua-gateway") return false;
  try {
    const commandLine = parseCommandLine(argv);
    if (commandLine.help) return false;
    const { config } = loadConfig({ role, configFile: commandLine.configFile, overrides: commandLine.overrides, env, endpointKinds: commandLine.endpointKinds });
    return config.endpoints.some((endpoint) => isOpcUaEndpoint(endpoint) && endpoint.supportedSecurityPolicies.includes("BASIC128RSA15"));
  } catch {
    return false; // the role reports the mistake itself, with its exit code
  }
}

/** Whether this process can decrypt RSA PKCS#1 v1.5, as BASIC128RSA15 needs (a small key: milliseconds). */
export function decryptsPkcs1v15(): boolean {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
  const padding = cryptoConstants.RSA_PKCS1_PADDING;
  try {
    return privateDecrypt({ key: privateKey, padding }, publicEncrypt({ key: publicKey, padding }, Buffer.from("probe"))).toString() === "probe";
  } catch {
    return false;
  }
}

/** True when this process must hand over to one started with the flag. */
export function needsRerun(process: NodeJS.Process): boolean {
  return !process.execArgv.includes(SECURITY_REVERT_FLAG) && selectsBasic128Rsa15(process.argv.slice(2), process.env) && !decryptsPkcs1v15();
}

/**
 * Runs this command again under `node --security-revert=…`. This process stays as a thin parent:
 * it relays the signals that stop a role (the child runs in its own process group, so a terminal's
 * Ctrl-C reaches it once, through here) and exits with the child's code.
 */
export function rerunWithSecurityRevert(process: NodeJS.Process): void {
  const child = spawn(process.execPath, [SECURITY_REVERT_FLAG, ...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit", detached: true });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
  child.once("error", (error) => {
    process.stderr.write(`twinport: cannot start node ${SECURITY_REVERT_FLAG} (needed for BASIC128RSA15): ${error.message}\n`);
    process.exit(1);
  });
  child.once("exit", (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)));
}
