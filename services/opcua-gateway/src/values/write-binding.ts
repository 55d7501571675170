import type { Principal } from "@twinport/shared";
import {
  type DataValue,
  type ISessionContext,
  NumericRange,
  type StatusCode,
  StatusCodes,
  type UAVariable,
  type Variant,
} from "node-opcua";
import { principalOfContext } from "../security/access-session-context.ts";
import type { StructureTypes } from "./structured-values.ts";

/** Which part of an element's ValueOnly form a writable node stands for (spec §4.5). */
export type WriteTarget =
  | { field: "value"; valueType: unknown } // Property
  | { field: "min" | "max"; valueType: unknown } // Range
  | { field: "blob" }
  | { field: "multi-language" }
  | { field: "reference"; referenceType?: string } // ReferenceElement value
  | { field: "first" | "second"; referenceType?: string } // (Annotated)RelationshipElement
  | { field: "entity-type" }
  | { field: "global-asset-id" };

/** Where a write goes: the same command HTTP PATCH …/$value sends. */
export interface ValueWriter {
  /** `principal`: the session's, when access rules apply (the engine checks the write again). */
  write(binding: WriteBinding, value: Variant, principal?: Principal): Promise<StatusCode>;
}

export interface WriteBinding {
  writer: ValueWriter;
  /** To read written Key structures. */
  structures: StructureTypes;
  submodelId: string;
  idShortPath: string;
  /** The element's idShort, for the wrapped body form; absent for list items. */
  idShort?: string;
  target: WriteTarget;
}

const BINDING = Symbol("twinport.writeBinding");
type BoundVariable = UAVariable & { [BINDING]?: WriteBinding };
type WriteCallback = (error: Error | null, statusCode?: StatusCode) => void;

/**
 * Routes a client's writes on `variable` to the store instead of the node. node-opcua's own
 * writeValue stores the client's value in the node itself once a setter answers (even with a Bad
 * status): the node must only ever change through the store's event, so the whole writeValue is
 * replaced. The binding is refreshed whenever the node is rebuilt in place.
 */
export function bindWrite(variable: UAVariable, binding: WriteBinding): void {
  const bound = variable as BoundVariable;
  bound[BINDING] = binding;
  if (variable.writeValue !== interceptedWriteValue)
    variable.writeValue = interceptedWriteValue as UAVariable["writeValue"];
}

function interceptedWriteValue(
  this: BoundVariable,
  context: ISessionContext | null,
  dataValue: DataValue,
  ...rest: unknown[]
): void {
  const callback = rest[rest.length - 1] as WriteCallback;
  const indexRange = rest.length === 2 ? NumericRange.coerce(rest[0] as string | NumericRange | null) : undefined;
  const binding = this[BINDING];
  if (binding === undefined || !this.isWritable(context as ISessionContext))
    return callback(null, StatusCodes.BadNotWritable);
  if (context && !this.isUserWritable(context)) return callback(null, StatusCodes.BadUserAccessDenied);
  // A value is written whole: AAS has no partial update of a value.
  if (indexRange && !indexRange.isEmpty()) return callback(null, StatusCodes.BadWriteNotSupported);
  // An AAS value has no status: a client saying its value is Bad or Uncertain would have it stored as
  // good (Part 4 §5.10.4: a status the server cannot write is Bad_WriteNotSupported). Timestamps are
  // taken and ignored, not refused: python-opcua (from 0.98.5) and asyncua clients send them with
  // plain writes, and servers that refuse them are a known stumbling block (docs/opcua.md).
  if (dataValue.statusCode !== undefined && dataValue.statusCode.value !== StatusCodes.Good.value)
    return callback(null, StatusCodes.BadWriteNotSupported);
  binding.writer.write(binding, dataValue.value, principalOfContext(context)).then(
    (statusCode) => callback(null, statusCode),
    () => callback(null, StatusCodes.BadInternalError),
  );
}
