// The one door to aas-core3.0-typescript. Its ES-module build imports its own files without file
// extensions, which Node's ES-module loader refuses (tsx tolerated it, so this only surfaced when
// production moved to compiled JavaScript, docs/adr/0021): this CommonJS module loads the package's
// CommonJS build instead (require picks the package's "require" export). `export *` compiles to
// tsc's __exportStar(require(…), exports), which Node's CommonJS export detection follows, so ES
// modules see every named export.
import { common } from "@aas-core-works/aas-core3.0-typescript";
import { useNodeBase64 } from "./node-base64.cts";

export * from "@aas-core-works/aas-core3.0-typescript";

// Before any model is read or written through this door: long Blob values in Node's codec (ADR 0061).
useNodeBase64(common);
