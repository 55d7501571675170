// The AAS model library: everything protocol-neutral about AAS v3.0 JSON. Imports nothing of ours.
import * as aasCore from "./aas-core.cts";
export { aasCore };

export { AasError, isAasError, type AasErrorKind, type AasErrorOptions } from "./aas-error.ts";
export { parseJsonText, parseJsonLossless, stringifyLossless } from "./json-text.ts";
export { refuseProtoKeys } from "./json-keys.ts";
export { readAas, readModel, toJsonable, verificationErrors, type AasClassName, type ReadableClassName, type ReadResult } from "./model-io.ts";
export { elementDepth, normalizeInput } from "./input-normalization.ts";
export { DEFAULT_MAX_NESTING_DEPTH, elementsTooDeep, getMaxNestingDepth, setMaxNestingDepth } from "./nesting-limit.ts";
export { isPlainObject } from "./plain-object.ts";
export { encodeBase64Url, decodeBase64Url } from "./base64url.ts";
export {
  parseIdShortPath,
  formatIdShortPath,
  splitParent,
  parentPathOf,
  childPath,
  isBelow,
  isIdShort,
  type PathSegment,
} from "./id-short-path.ts";
export {
  childrenKey,
  containerKey,
  isList,
  getChildren,
  findByPath,
  insertChild,
  replaceChild,
  deleteChild,
  listIndexes,
  type ElementJson,
  type ChildrenKey,
} from "./element-tree.ts";
export { flattenElements, shallowOf, assembleElements, assembleElement, type ElementRecord } from "./element-records.ts";
export { toValueOnly, submodelToValueOnly, hasValueOnly, type ValueOnlyOptions } from "./value-only.ts";
export { applyValueOnly, unwrapValueOnly, type ApplyValueOnlyOptions } from "./value-only-apply.ts";
export { mergePatch } from "./merge-patch.ts";
export { hasMetadata, metadataOmits, toMetadata } from "./metadata.ts";
export { hasPathItems, rootIdShortOf } from "./path-items.ts";
export { submodelReference, elementReference, type ModelReference } from "./model-reference.ts";
export { withoutBlobValues } from "./blob-extent.ts";
export { valueJsonKind, lexicalToValueJson, valueJsonToLexical, isValidLexical, jsonNumberToken, type ValueJsonKind } from "./xsd-values.ts";
export { parseAasXml } from "./xml/aas-xml-reader.ts";
export { writeAasXml } from "./xml/aas-xml-writer.ts";
export { AAS_XML_NAMESPACE } from "./xml/aas-xml-names.ts";
export { detectJsonFormatProblem } from "./legacy-format.ts";
export { readAasx, readAasxOffThread } from "./aasx/aasx-reader.ts";
export { writeAasx } from "./aasx/aasx-writer.ts";
export { DEFAULT_AASX_LIMITS, type AasxLimits } from "./aasx/aasx-limits.ts";
export { partNameOfModelPath, partKey, entryNameOfPart } from "./aasx/part-names.ts";
export type { AasxContent, AasxPart, AasxWriteInput } from "./aasx/aasx-content.ts";
export { KEY_TYPE_NAMES } from "./key-types.ts";
