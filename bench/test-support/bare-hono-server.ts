/**
 * The baseline of bench/http-throughput.ts: a bare Hono handler on @hono/node-server answering the
 * given bytes, in a process of its own like the server it is compared with (a server inside the
 * load generator's process would skip the cross-process scheduling the real server pays for).
 * Usage: node --import tsx bench/test-support/bare-hono-server.ts PORT VALUE_FILE SUBMODEL_FILE
 */
import { readFileSync } from "node:fs";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const [port, valueFile, submodelFile] = process.argv.slice(2);
const valueBody = readFileSync(valueFile, "utf8");
const submodelBody = readFileSync(submodelFile, "utf8");
const app = new Hono();
app.get("/api/v3.0/submodels/:id/submodel-elements/:path/$value", (c) =>
  c.body(valueBody, 200, { "content-type": "application/json" }),
);
app.patch("/api/v3.0/submodels/:id/submodel-elements/:path/$value", async (c) => {
  await c.req.text();
  return c.body(null, 204);
});
app.get("/api/v3.0/submodels/:id", (c) => c.body(submodelBody, 200, { "content-type": "application/json" }));
const server = serve({ fetch: app.fetch, port: Number(port), hostname: "127.0.0.1" }, () =>
  console.log("bare hono ready"),
);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
