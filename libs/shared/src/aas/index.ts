// The AAS model library: everything protocol-neutral about AAS v3.0 JSON. Imports nothing of ours.
import * as aasCore from "./aas-core.cts";

export { AasError, type AasErrorKind, type AasErrorOptions, isAasError } from "./aas-error.ts";
export type { AasxContent, AasxPart, AasxWriteInput } from "./aasx/aasx-content.ts";
export { type AasxLimits, DEFAULT_AASX_LIMITS } from "./aasx/aasx-limits.ts";
export {
  type OpenedAasx,
  openAasxOffThread,
  packagePathsInModel,
  readAasx,
  readAasxOffThread,
} from "./aasx/aasx-reader.ts";
export { type AasxStreamInput, type LazyAasxPart, writeAasxStream } from "./aasx/aasx-stream-writer.ts";
export { writeAasx } from "./aasx/aasx-writer.ts";
export { entryNameOfPart, partKey, partNameOfModelPath } from "./aasx/part-names.ts";
export { withArticle } from "./article.ts";
export { decodeBase64Url, encodeBase64Url } from "./base64url.ts";
export { keepBlobValues, withoutBlobValues } from "./blob-extent.ts";
export { countSubmodelElements } from "./count-elements.ts";
export { ECHOED_VALUE_MAX_CHARACTERS, echoed } from "./echoed-value.ts";
export {
  assembleElement,
  assembleElements,
  checkElementsAddressable,
  type ElementRecord,
  flattenElements,
  shallowOf,
} from "./element-records.ts";
export {
  type ChildrenKey,
  childrenKey,
  containerKey,
  deleteChild,
  type ElementJson,
  findByPath,
  getChildren,
  insertChild,
  isList,
  listIndexes,
  replaceChild,
} from "./element-tree.ts";
export { createEnvironmentJsonReader } from "./environment-json-stream.ts";
export {
  ENVIRONMENT_SECTION_KEYS,
  type EnvironmentItem,
  type EnvironmentItemSink,
  type EnvironmentSectionKey,
  type EnvironmentStreamReader,
} from "./environment-stream.ts";
export {
  childPath,
  formatIdShortPath,
  isBelow,
  isIdShort,
  type PathSegment,
  parentPathOf,
  parseIdShortPath,
  splitParent,
} from "./id-short-path.ts";
export { elementDepth, normalizeInput } from "./input-normalization.ts";
export { refuseProtoKeys } from "./json-keys.ts";
export { jsonSurelyLongerThan } from "./json-size.ts";
export { parseJsonLossless, parseJsonText, stringifyLossless } from "./json-text.ts";
export { KEY_TYPE_NAMES } from "./key-types.ts";
export { detectJsonFormatProblem } from "./legacy-format.ts";
export { mergePatch } from "./merge-patch.ts";
export { hasMetadata, metadataOmits, toMetadata } from "./metadata.ts";
export {
  type AasClassName,
  type ReadableClassName,
  type ReadResult,
  readAas,
  readModel,
  toJsonable,
  verificationErrors,
} from "./model-io.ts";
export { elementReference, type ModelReference, submodelReference } from "./model-reference.ts";
export { DEFAULT_MAX_NESTING_DEPTH, elementsTooDeep, getMaxNestingDepth, setMaxNestingDepth } from "./nesting-limit.ts";
export { hasPathItems, rootIdShortOf } from "./path-items.ts";
export { isPlainObject } from "./plain-object.ts";
export { patchedPropertyValue } from "./property-value-patch.ts";
export { hasValueOnly, submodelToValueOnly, toValueOnly, type ValueOnlyOptions } from "./value-only.ts";
export { type ApplyValueOnlyOptions, applyValueOnly, unwrapValueOnly } from "./value-only-apply.ts";
export { AAS_XML_NAMESPACE } from "./xml/aas-xml-names.ts";
export { createAasXmlReader, parseAasXml } from "./xml/aas-xml-reader.ts";
export {
  AAS_XML_ENVIRONMENT_OPEN,
  writeAasXml,
  writeAasXmlEnvironmentItem,
} from "./xml/aas-xml-writer.ts";
export {
  isValidLexical,
  jsonNumberToken,
  lexicalToValueJson,
  type ValueJsonKind,
  valueJsonKind,
  valueJsonToLexical,
} from "./xsd-values.ts";
export { aasCore };
