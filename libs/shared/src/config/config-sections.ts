import type { z } from "zod";
import { isPlainObject } from "../aas/plain-object.ts";
import { assetConnectionSection } from "./asset-connections.ts";
import { type ClassedSection, classSuffix } from "./class-names.ts";
import { coreSchema } from "./core.ts";
import { endpointSection } from "./endpoints.ts";
import { eventsSchema } from "./events.ts";
import { fileStorageSection } from "./file-storage.ts";
import { messageBusSection } from "./message-bus.ts";
import { persistenceSection } from "./persistence.ts";
import { securitySchema } from "./security.ts";
import { submodelTemplateProcessorSection } from "./submodel-template-processors.ts";

/** How a top-level section is shaped: a plain object, one @class object, or a list of them. */
export type SectionLayout =
  | { shape: "plain"; schema: z.ZodType }
  | { shape: "classed"; section: ClassedSection }
  | { shape: "classed-list"; section: ClassedSection };

/** The top level of the configuration file, in the spec's shape. */
export const CONFIG_SECTIONS: Readonly<Record<string, SectionLayout>> = {
  core: { shape: "plain", schema: coreSchema },
  endpoints: { shape: "classed-list", section: endpointSection },
  persistence: { shape: "classed", section: persistenceSection },
  messageBus: { shape: "classed", section: messageBusSection },
  fileStorage: { shape: "classed", section: fileStorageSection },
  assetConnections: { shape: "classed-list", section: assetConnectionSection },
  submodelTemplateProcessors: { shape: "classed-list", section: submodelTemplateProcessorSection },
  security: { shape: "plain", schema: securitySchema },
  events: { shape: "plain", schema: eventsSchema },
};

export const SECTION_NAMES: readonly string[] = Object.keys(CONFIG_SECTIONS);

/** The schema of one @class entry as written (undefined while its @class is missing or unknown). */
export function schemaOfEntry(section: ClassedSection, entry: unknown): z.ZodType | undefined {
  if (!isPlainObject(entry) || typeof entry["@class"] !== "string") return undefined;
  return section.schemaFor(classSuffix(entry["@class"]));
}
