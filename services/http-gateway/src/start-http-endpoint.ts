import { createAdaptorServer } from "@hono/node-server";
import type { Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { StoreClient } from "@twinport/shared";
import { createHttpApp } from "./create-http-app.ts";
import type { HttpEndpointSettings } from "./http-endpoint-settings.ts";
import { tlsCredentials } from "./tls/tls-credentials.ts";

export interface HttpEndpointDeps {
  store: StoreClient;
  settings: HttpEndpointSettings;
  /** Where the self-signed certificate is kept between starts. */
  stateDir: string;
}

export interface RunningHttpEndpoint {
  /** The port actually bound (differs from the setting when that was 0). */
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Serves the HTTP endpoint on its configured address: HTTPS unless `sslEnabled` is false. */
export async function startHttpEndpoint(deps: HttpEndpointDeps): Promise<RunningHttpEndpoint> {
  const { settings } = deps;
  const app = createHttpApp({ store: deps.store, settings });
  const tls = settings.sslEnabled ? await tlsCredentials(settings, deps.stateDir) : undefined;
  const server = createAdaptorServer({
    fetch: app.fetch,
    ...(tls ? { createServer: createHttpsServer, serverOptions: { key: tls.key, cert: tls.cert } } : {}),
  }) as Server;

  await listen(server, settings);
  const port = (server.address() as AddressInfo).port;
  const scheme = tls ? "https" : "http";
  return {
    port,
    url: `${scheme}://${urlHost(settings)}:${port}`,
    close: () => closeServer(server),
  };
}

function listen(server: Server, settings: HttpEndpointSettings): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      reject(listenError(error, settings));
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(settings.port, settings.host);
  });
}

/** Turns bind failures into a message that says which setting to change. */
export function listenError(error: NodeJS.ErrnoException, settings: HttpEndpointSettings): Error {
  const where = `${settings.host}:${settings.port}`;
  const portSetting = `the HTTP endpoint's "port" setting (endpoints[i].port in the configuration)`;
  let message: string;
  switch (error.code) {
    case "EADDRINUSE":
      message = `HTTP endpoint cannot listen on ${where}: the port is already in use. Change ${portSetting}, or stop the other process.`;
      break;
    case "EACCES":
      message = `HTTP endpoint cannot listen on ${where}: ports below 1024 need privileges. Change ${portSetting} (e.g. to 8443), or grant the capability to bind it.`;
      break;
    case "EADDRNOTAVAIL":
      message = `HTTP endpoint cannot listen on ${where}: the address is not available on this machine. Change the HTTP endpoint's "host" setting (endpoints[i].host).`;
      break;
    default:
      message = `HTTP endpoint cannot listen on ${where}: ${error.message}`;
  }
  return Object.assign(new Error(message, { cause: error }), { code: error.code });
}

function urlHost(settings: HttpEndpointSettings): string {
  const host = settings.host === "0.0.0.0" || settings.host === "::" || settings.host === "" ? "localhost" : settings.host;
  return host.includes(":") ? `[${host}]` : host;
}

/** Stops accepting, then ends idle and in-flight keep-alive connections so close() does not hang. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) return resolve();
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
    server.closeAllConnections();
  });
}
