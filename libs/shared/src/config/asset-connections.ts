import { z } from "zod";
import type { ClassedSection } from "./class-names.ts";

export const HTTP_ASSET_CONNECTION_CLASS = "assetconnection.http.HttpAssetConnection";
export const OPCUA_ASSET_CONNECTION_CLASS = "assetconnection.opcua.OpcUaAssetConnection";
export const MQTT_ASSET_CONNECTION_CLASS = "assetconnection.mqtt.MqttAssetConnection";

/**
 * FA³ST's asset connection classes. Their inner properties (connection settings and the
 * valueProviders / subscriptionProviders / operationProviders maps) pass through unchecked for now;
 * the asset-connection feature validates them.
 */
function assetConnectionSchema<C extends string>(className: C) {
  return z.looseObject({ "@class": z.literal(className) });
}

export const httpAssetConnectionSchema = assetConnectionSchema(HTTP_ASSET_CONNECTION_CLASS);
export const opcuaAssetConnectionSchema = assetConnectionSchema(OPCUA_ASSET_CONNECTION_CLASS);
export const mqttAssetConnectionSchema = assetConnectionSchema(MQTT_ASSET_CONNECTION_CLASS);

export type AssetConnectionConfig =
  | z.output<typeof httpAssetConnectionSchema>
  | z.output<typeof opcuaAssetConnectionSchema>
  | z.output<typeof mqttAssetConnectionSchema>;

export const assetConnectionSection: ClassedSection = {
  what: "asset connection",
  known: [HTTP_ASSET_CONNECTION_CLASS, OPCUA_ASSET_CONNECTION_CLASS, MQTT_ASSET_CONNECTION_CLASS],
  schemaFor(suffix) {
    switch (suffix) {
      case HTTP_ASSET_CONNECTION_CLASS:
        return httpAssetConnectionSchema;
      case OPCUA_ASSET_CONNECTION_CLASS:
        return opcuaAssetConnectionSchema;
      case MQTT_ASSET_CONNECTION_CLASS:
        return mqttAssetConnectionSchema;
      default:
        return undefined;
    }
  },
};
