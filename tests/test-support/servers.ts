/**
 * Real Redis, NATS and MQTT (mosquitto) servers for tests: each call starts a fresh server on a free
 * loopback port with its own temp dir, and `stop()` kills it by PID. No mocks of our infrastructure.
 * Binaries come from Debian's redis-server, nats-server and mosquitto (scripts/ensure-servers.sh
 * installs them).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import forge from "node-forge";

export interface RunningServer {
  url: string;
  port: number;
  pid: number;
  dir: string;
  stop(): Promise<void>;
}

/** Debian puts nats-server in /usr/sbin, which is not on every user's PATH. */
export function serverBinary(name: "redis-server" | "nats-server" | "mosquitto" | "mosquitto_passwd"): string {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/sbin", "/usr/bin", "/usr/local/bin"])) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(
    `${name} is not installed: run 'bash scripts/ensure-servers.sh' (as root it installs the Debian packages redis-server, nats-server and mosquitto)`,
  );
}

/**
 * A loopback port that is free now, for a server the caller starts later. Chosen below the kernel's
 * ephemeral range: a port from that range (what listen(0) hands out) may meanwhile become the source
 * port of any outgoing connection, or the port another process gets from listen(0) (a gateway's
 * management port falling back from 9464 took a port a test had chosen for its HTTP endpoint), and the
 * server then fails with "address in use". Below the range only another caller of this function can
 * take it, and it picks at random among ~12,000.
 */
export async function freePort(): Promise<number> {
  const given = portRange();
  if (given) {
    // Several test runs share one machine, each on ports of its own (TWINPORT_TEST_PORTS=low-high).
    for (let port = given[0]; port <= given[1]; port++) {
      if (handedOut.has(port) || !(await canListen(port))) continue;
      handedOut.add(port);
      return port;
    }
    throw new Error(`No free port left in TWINPORT_TEST_PORTS=${given[0]}-${given[1]}`);
  }
  const [low] = ephemeralRange();
  const from = 20_000;
  if (low > from + 1000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = from + Math.floor(Math.random() * (low - from));
      // Never the same port twice to one process: callers often take two before starting anything.
      if (handedOut.has(port) || !(await canListen(port))) continue;
      handedOut.add(port);
      return port;
    }
  }
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const handedOut = new Set<number>();
let range: [number, number] | undefined;

/** The ports TWINPORT_TEST_PORTS ("21000-21099") gives this run, if any. */
function portRange(): [number, number] | undefined {
  const match = /^(\d+)-(\d+)$/.exec(process.env.TWINPORT_TEST_PORTS?.trim() ?? "");
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}
/** The kernel's ephemeral port range (Linux), or IANA's when it cannot be read. */
function ephemeralRange(): [number, number] {
  if (range) return range;
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    range = Number.isInteger(low) && Number.isInteger(high) ? [low!, high!] : [49152, 65535];
  } catch {
    range = [49152, 65535];
  }
  return range;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function waitForPort(port: number, child: ChildProcess, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before listening`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} did not listen on port ${port} within ${timeoutMs} ms`);
}

export function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

export interface RedisOptions {
  /** Persist with AOF and appendfsync always (fault tests). Default: no persistence. */
  appendOnly?: boolean;
  port?: number;
  dir?: string;
}

/**
 * A port from freePort() is free when asked, not when the server binds it: another test process may
 * take it in between, and the server then exits ("address already in use"). With ports of our own
 * choosing, such an early exit is retried on fresh ports; a port the caller named is not.
 */
async function onFreePorts<T>(portsGiven: boolean, start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const exitedEarly = error instanceof Error && / exited with code \d+ before listening$/.test(error.message);
      if (portsGiven || !exitedEarly || attempt === 3) throw error;
    }
  }
}

export function startRedis(options: RedisOptions = {}): Promise<RunningServer> {
  return onFreePorts(options.port !== undefined, () => startRedisOnce(options));
}

async function startRedisOnce(options: RedisOptions): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "twinport-redis-"));
  const log = openSync(join(dir, "redis.log"), "a");
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir, "--daemonize", "no"];
  args.push(...(options.appendOnly ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]));
  const child = spawn(serverBinary("redis-server"), args, { stdio: ["ignore", log, log] });
  await waitForPort(port, child, "redis-server");
  return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid!, dir, stop: stopper(child, dir) };
}

export interface NatsOptions {
  port?: number;
  /** The HTTP monitoring port; default: a free one. */
  monitorPort?: number;
  dir?: string;
  /** The server then refuses clients without these credentials (`url` stays without them). */
  user?: string;
  pass?: string;
}

export function startNats(options: NatsOptions = {}): Promise<RunningServer & { monitorPort: number }> {
  return onFreePorts(options.port !== undefined, () => startNatsOnce(options));
}

async function startNatsOnce(options: NatsOptions): Promise<RunningServer & { monitorPort: number }> {
  const port = options.port ?? (await freePort());
  const monitorPort = options.monitorPort ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "twinport-nats-"));
  const log = openSync(join(dir, "nats.log"), "a");
  const args = ["-a", "127.0.0.1", "-p", String(port), "-m", String(monitorPort), "-js", "-sd", join(dir, "js")];
  if (options.user !== undefined) args.push("--user", options.user, "--pass", options.pass ?? "");
  const child = spawn(serverBinary("nats-server"), args, { stdio: ["ignore", log, log] });
  await waitForPort(port, child, "nats-server");
  return { url: `nats://127.0.0.1:${port}`, port, monitorPort, pid: child.pid!, dir, stop: stopper(child, dir) };
}

export interface MosquittoOptions {
  /** Port of the plain MQTT listener (to restart a broker where clients expect it). Default: a free one. */
  port?: number;
  /** User name → password. When given, anonymous clients are refused (password file made with mosquitto_passwd). */
  users?: Record<string, string>;
  /** Adds a TLS listener with a self-signed certificate for 127.0.0.1 and localhost. */
  tls?: boolean;
  /** Port of the TLS listener. Default: a free one. */
  tlsPort?: number;
  /** PEM of a CA: the TLS listener then requires a client certificate issued by it (mutual TLS). */
  clientCa?: string;
  /** mosquitto's per-client queue of QoS 1 messages (default here 10,000; benchmarks raise it). */
  maxQueuedMessages?: number;
  /** mosquitto's QoS 1 messages in flight per client, unacknowledged (mosquitto's default: 20; 0 = no limit). */
  maxInflightMessages?: number;
  /**
   * Keeps sessions, subscriptions and queued messages across a restart in this directory (the
   * caller's: it outlives `stop()`). Default: no persistence.
   */
  persistenceDir?: string;
  /** With `tls`: the TLS listener requires a client certificate issued by this CA (PEM file). */
  clientCaFile?: string;
  /** Adds a plain MQTT-over-WebSocket listener on this port. */
  websocketPort?: number;
}

export interface RunningMosquitto extends RunningServer {
  /** mqtt://127.0.0.1:<port>. */
  url: string;
  /** The TLS listener, when `tls` was asked for. */
  tlsPort?: number;
  /** mqtts://127.0.0.1:<tlsPort>. */
  tlsUrl?: string;
  /** The TLS listener's self-signed certificate (PEM): what a client has to trust. */
  certificate?: string;
  logFile: string;
}

/** A self-signed certificate and key (PEM) for a loopback server. node-forge: no openssl needed. */
export function selfSignedServerCertificate(commonName = "localhost"): { key: string; certificate: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString());
  certificate.serialNumber = "0" + Date.now().toString(16);
  certificate.validity.notBefore = new Date(Date.now() - 60_000);
  certificate.validity.notAfter = new Date(Date.now() + 86_400_000);
  const name = [{ name: "commonName", value: commonName }];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([
    { name: "basicConstraints", cA: false },
    {
      name: "subjectAltName",
      altNames: [
        { type: 7, ip: "127.0.0.1" },
        { type: 2, value: "localhost" },
      ],
    },
  ]);
  const key = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  certificate.sign(forge.pki.privateKeyFromPem(key), forge.md.sha256.create());
  return { key, certificate: forge.pki.certificateToPem(certificate) };
}

/**
 * A mosquitto broker of its own: a generated config file in a temp dir, listeners on 127.0.0.1 only
 * and on free ports (never 1883, where a system mosquitto from the Debian package may listen), no
 * persistence, its log in <dir>/mosquitto.log.
 */
export async function startMosquitto(options: MosquittoOptions = {}): Promise<RunningMosquitto> {
  const port = options.port ?? (await freePort());
  const tlsPort = options.tls ? (options.tlsPort ?? (await freePort())) : undefined;
  const dir = mkdtempSync(join(tmpdir(), "twinport-mosquitto-"));
  const lines = [
    "per_listener_settings false",
    ...(options.persistenceDir
      ? [
          "persistence true",
          `persistence_location ${options.persistenceDir.replace(/\/?$/, "/")}`,
          "autosave_interval 1",
        ]
      : ["persistence false"]),
    // Started as root, mosquitto drops to the "mosquitto" user, which could not read this temp dir.
    ...(process.getuid?.() === 0 ? ["user root"] : []),
    "log_dest stderr",
    "log_type error",
    "log_type warning",
    "log_type notice",
    "log_type information",
    "log_type subscribe",
    "log_type unsubscribe",
    "connection_messages true",
    "log_timestamp_format %H:%M:%S",
    // Above any test's burst. At mosquitto's default (1,000) a subscriber that falls behind on a
    // loaded machine loses the newest QoS 1 messages in the broker, and a burst test whose point is
    // our own latest-wins coalescing would fail for the broker's reason (seen in CI).
    `max_queued_messages ${options.maxQueuedMessages ?? 10000}`,
    ...(options.maxInflightMessages !== undefined ? [`max_inflight_messages ${options.maxInflightMessages}`] : []),
    `listener ${port} 127.0.0.1`,
  ];
  if (options.users) {
    const passwords = join(dir, "passwords");
    writeFileSync(passwords, "");
    for (const [user, password] of Object.entries(options.users))
      execFileSync(serverBinary("mosquitto_passwd"), ["-b", passwords, user, password], { stdio: "ignore" });
    lines.push("allow_anonymous false", `password_file ${passwords}`);
  } else {
    lines.push("allow_anonymous true");
  }
  let certificate: string | undefined;
  if (tlsPort !== undefined) {
    const made = selfSignedServerCertificate();
    certificate = made.certificate;
    writeFileSync(join(dir, "server.key"), made.key, { mode: 0o600 });
    writeFileSync(join(dir, "server.crt"), made.certificate);
    lines.push(
      `listener ${tlsPort} 127.0.0.1`,
      `certfile ${join(dir, "server.crt")}`,
      `keyfile ${join(dir, "server.key")}`,
      ...(options.clientCaFile ? [`cafile ${options.clientCaFile}`, "require_certificate true"] : []),
    );
    if (options.clientCa !== undefined) {
      writeFileSync(join(dir, "client-ca.crt"), options.clientCa);
      lines.push(`cafile ${join(dir, "client-ca.crt")}`, "require_certificate true");
    }
  }
  if (options.websocketPort !== undefined)
    lines.push(`listener ${options.websocketPort} 127.0.0.1`, "protocol websockets");
  writeFileSync(join(dir, "mosquitto.conf"), `${lines.join("\n")}\n`);
  const logFile = join(dir, "mosquitto.log");
  const log = openSync(logFile, "a");
  const child = spawn(serverBinary("mosquitto"), ["-c", join(dir, "mosquitto.conf")], { stdio: ["ignore", log, log] });
  await waitForPort(port, child, "mosquitto");
  if (tlsPort !== undefined) await waitForPort(tlsPort, child, "mosquitto (TLS listener)");
  if (options.websocketPort !== undefined)
    await waitForPort(options.websocketPort, child, "mosquitto (WebSocket listener)");
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    dir,
    logFile,
    ...(tlsPort !== undefined ? { tlsPort, tlsUrl: `mqtts://127.0.0.1:${tlsPort}`, certificate } : {}),
    stop: stopper(child, dir),
  };
}
