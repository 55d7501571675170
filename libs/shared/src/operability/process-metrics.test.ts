import assert from "node:assert/strict";
import { test } from "node:test";
import { createProcessMetrics } from "./process-metrics.ts";

/** The value of the series `name` whose labels include all of `labels` (prom-client orders them as it likes). */
function valueOf(text: string, name: string, labels: string): number | undefined {
  const wanted = labels.split(",");
  const line = text.split("\n").find((l) => {
    if (!l.startsWith(`${name}{`)) return false;
    const have = l.slice(name.length + 1, l.lastIndexOf("}")).split(",");
    return wanted.every((label) => have.includes(label)) && have.length === wanted.length + 1; // + role
  });
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
}

test("HTTP requests are counted per method, route and status, each series apart", async () => {
  const metrics = createProcessMetrics("test");
  const route = "/api/v3.0/submodels/:submodelIdentifier/submodel-elements/:idShortPath/$value";
  const other = "/api/v3.0/shells";
  // Same route, other status; same status, other method; same method and status, other route.
  const calls: [string, string, number][] = [
    ["PATCH", route, 204],
    ["PATCH", route, 204],
    ["PATCH", route, 412],
    ["GET", route, 204],
    ["GET", route, 200],
    ["GET", other, 200],
    ["PATCH", route, 204],
  ];
  for (const [method, path, status] of calls) metrics.observeHttpRequest(method, path, status, 0.002);
  const text = await metrics.registry.metrics();
  const count = (method: string, path: string, status: number) =>
    valueOf(text, "twinport_http_requests_total", `method="${method}",route="${path}",status="${status}"`);
  assert.equal(count("PATCH", route, 204), 3);
  assert.equal(count("PATCH", route, 412), 1);
  assert.equal(count("GET", route, 204), 1);
  assert.equal(count("GET", route, 200), 1);
  assert.equal(count("GET", other, 200), 1);
  assert.equal(count("PATCH", other, 200), undefined);
  assert.equal(
    valueOf(text, "twinport_http_request_duration_seconds_count", `method="PATCH",route="${route}",status="204"`),
    3,
  );
  assert.equal(
    valueOf(text, "twinport_http_request_duration_seconds_sum", `method="GET",route="${other}",status="200"`),
    0.002,
  );
});
