/**
 * OPC part names (ISO/IEC 29500-2 §9.1.1): "/"-rooted, percent-encoded URI paths, compared
 * case-insensitively. We hand part names out decoded ("/aasx/files/My File.pdf"), because that is
 * what File elements in the model contain, and store them encoded in the zip.
 */

/** Zip entry name → decoded part name with a leading "/". */
export function partNameOfEntry(entryName: string): string {
  return "/" + safeDecode(entryName);
}

/** Decoded part name → zip entry name (percent-encoding what a URI path segment cannot hold). */
export function entryNameOfPart(partName: string): string {
  return partName
    .slice(1)
    .split("/")
    .map((segment) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join("/");
}

/** The key two part names are equal under. */
export function partKey(partName: string): string {
  return partName.toLowerCase();
}

/** The relationships part of a part: /a/b.xml → /a/_rels/b.xml.rels; the package's is /_rels/.rels. */
export function relationshipsPartOf(sourcePart: string | undefined): string {
  if (sourcePart === undefined) return "/_rels/.rels";
  const slash = sourcePart.lastIndexOf("/");
  return `${sourcePart.slice(0, slash)}/_rels/${sourcePart.slice(slash + 1)}.rels`;
}

/**
 * A relationship target (a URI reference, relative to the source part's folder) → decoded part
 * name; undefined when it points outside the package.
 */
export function resolveTarget(sourcePart: string | undefined, target: string): string | undefined {
  const base = `http://package${sourcePart ?? "/"}`;
  let url: URL;
  try {
    url = new URL(target.trim(), base);
  } catch {
    return undefined;
  }
  if (url.origin !== "http://package") return undefined;
  return safeDecode(url.pathname);
}

/**
 * A path a model element holds (File.value, defaultThumbnail.path) → decoded part name, when it
 * is a package path at all: "/aasx/x.pdf" and "aasx/x.pdf" are, "https://…" and "urn:…" are not.
 */
export function partNameOfModelPath(path: string): string | undefined {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) return undefined;
  return resolveTarget(undefined, path.startsWith("/") ? path : `/${path}`);
}

/** The extension used for Default content types: the text after the last "." of the last segment. */
export function extensionOf(partName: string): string {
  const segment = partName.slice(partName.lastIndexOf("/") + 1);
  const dot = segment.lastIndexOf(".");
  return dot < 0 ? "" : segment.slice(dot + 1).toLowerCase();
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
