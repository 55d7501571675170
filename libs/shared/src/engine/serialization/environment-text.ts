import { AAS_XML_ENVIRONMENT_OPEN, writeAasXmlEnvironmentItem } from "../../aas/index.ts";
import type { EnvironmentItems } from "./environment-items.ts";

type TextFormat = "json" | "xml";

/** The Environment's lists in the order Part 1 (JSON and XSD) gives them. */
const LISTS = ["assetAdministrationShells", "submodels", "conceptDescriptions"] as const;

/**
 * The Environment as text, written as its items are read: the same text JSON.stringify and
 * writeAasXml make of the whole environment, without ever holding it. Part 1 wants no empty lists
 * (minItems 1): a list's opening is written with its first item.
 */
export async function* environmentText(items: EnvironmentItems, format: TextFormat): AsyncIterable<string> {
  const sources = {
    assetAdministrationShells: items.shells,
    submodels: items.submodels,
    conceptDescriptions: items.conceptDescriptions,
  };
  let opened = false;
  for (const list of LISTS) {
    let index = 0;
    for await (const item of sources[list]) {
      if (format === "json") {
        yield index === 0
          ? `${opened ? "," : "{"}${JSON.stringify(list)}:[${JSON.stringify(item)}`
          : `,${JSON.stringify(item)}`;
      } else {
        const head = index === 0 ? `${opened ? "" : AAS_XML_ENVIRONMENT_OPEN}\n  <${list}>` : "";
        yield `${head}\n    ${writeAasXmlEnvironmentItem(list, item, index)}`;
      }
      opened = true;
      index++;
    }
    if (index > 0) yield format === "json" ? "]" : `\n  </${list}>`;
  }
  if (format === "json") yield opened ? "}" : "{}";
  else yield opened ? "\n</environment>\n" : `${AAS_XML_ENVIRONMENT_OPEN.slice(0, -1)}/>\n`;
}

/** Text pieces → UTF-8 chunks of about `chunkBytes` (a few big writes beat many small ones). */
export async function* utf8Chunks(text: AsyncIterable<string>, chunkBytes: number): AsyncIterable<Uint8Array> {
  let pending: string[] = [];
  let length = 0;
  for await (const piece of text) {
    pending.push(piece);
    length += piece.length;
    if (length >= chunkBytes) {
      yield Buffer.from(pending.join(""), "utf8");
      pending = [];
      length = 0;
    }
  }
  if (length > 0 || pending.length > 0) yield Buffer.from(pending.join(""), "utf8");
}
