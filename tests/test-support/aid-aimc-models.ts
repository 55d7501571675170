/**
 * The AID/AIMC submodels the asset-interfaces suites post and load: the example pair of docs/asset-interfaces.md
 * (examples/aid-aimc) and the filled-in IDTA templates (tests/fixtures/aid-aimc), re-pointed at
 * the test's own assets and given ids of their own, so one process can hold several copies.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./system.ts";

export const FAAAST_AIMC_PROCESSOR =
  "de.fraunhofer.iosb.ilt.faaast.service.submodeltemplate.aimc.AimcSubmodelTemplateProcessor";
const EXAMPLE_IDS = "https://example.com/ids/sm/";
const EXAMPLE_BASE = "http://127.0.0.1:8081";

export interface ExamplePair {
  aid: Record<string, unknown>;
  aimc: Record<string, unknown>;
  operationalData: Record<string, unknown>;
  aidId: string;
  aimcId: string;
  operationalDataId: string;
}

function readAs(file: string, replace: (text: string) => string): Record<string, unknown> {
  return JSON.parse(replace(readFileSync(join(REPO_ROOT, file), "utf8"))) as Record<string, unknown>;
}

/** The example pair (and its target submodel) with ids under `<prefix>` and the base `baseUrl`. */
export function examplePair(prefix: string, baseUrl: string, edit: (text: string) => string = (t) => t): ExamplePair {
  const replace = (text: string) =>
    edit(text.replaceAll(EXAMPLE_IDS, `${EXAMPLE_IDS}${prefix}-`).replaceAll(EXAMPLE_BASE, baseUrl));
  return {
    aid: readAs("examples/aid-aimc/aid.json", replace),
    aimc: readAs("examples/aid-aimc/aimc.json", replace),
    operationalData: readAs("examples/aid-aimc/operational-data.json", replace),
    aidId: `${EXAMPLE_IDS}${prefix}-pump-aid`,
    aimcId: `${EXAMPLE_IDS}${prefix}-pump-aimc`,
    operationalDataId: `${EXAMPLE_IDS}${prefix}-operational-data`,
  };
}

/**
 * The filled-in templates (HTTP, MQTT and Modbus interfaces, the template's own semanticId
 * spellings) with the HTTP base at `httpBase` and the MQTT base at `mqttBase`, and the target
 * submodel they map into (Voltage, MqttVoltage, ModbusVoltage).
 */
export function templatePair(httpBase: string, mqttBase: string) {
  const replace = (text: string) =>
    text.replaceAll("http://127.0.0.1:8081", httpBase).replaceAll("mqtt://127.0.0.1:1883", mqttBase);
  const targetId = "https://example.com/ids/sm/template-operational-data";
  return {
    aid: readAs("tests/fixtures/aid-aimc/aid-template-instance.json", replace),
    aimc: readAs("tests/fixtures/aid-aimc/aimc-template-instance.json", replace),
    aimcId: "https://example.com/ids/sm/template-aimc",
    targetId,
    target: {
      modelType: "Submodel",
      id: targetId,
      idShort: "TemplateOperationalData",
      submodelElements: ["Voltage", "MqttVoltage", "ModbusVoltage"].map((idShort) => ({
        modelType: "Property",
        idShort,
        valueType: "xs:double",
        value: "0",
      })),
    },
  };
}

/**
 * The FA³ST-shaped example (tests/fixtures/aid-aimc/faaast-shaped-example.json): an AID with HTTP,
 * MQTT and OPC UA interfaces, its AIMC and the target submodel (Voltage, MqttVoltage,
 * OpcuaTemperature, OpcuaSerial), with FA³ST's real-world defects; re-pointed at the test's assets.
 */
export function faaastShapedExample(httpBase: string, mqttBase: string, opcuaBase: string) {
  const replace = (text: string) =>
    text
      .replaceAll("http://127.0.0.1:8081", httpBase)
      .replaceAll("mqtt://127.0.0.1:1883", mqttBase)
      .replaceAll("opc.tcp://127.0.0.1:4840", opcuaBase);
  const [aid, aimc, target] = readAs("tests/fixtures/aid-aimc/faaast-shaped-example.json", replace).submodels as Record<
    string,
    unknown
  >[];
  return {
    aid: aid!,
    aimc: aimc!,
    target: target!,
    aidId: "https://example.com/ids/sm/faaast-AssetInterfacesDescription",
    aimcId: "https://example.com/ids/sm/faaast-AssetInterfacesMappingConfiguration",
    targetId: "https://example.com/ids/sm/faaast-OperationalData",
  };
}
