import { AasError, applyValueOnly, type ElementJson, parseJsonLossless, parseJsonText } from "../../aas/index.ts";
import { isPlainObject } from "../../aas/plain-object.ts";
import { CommandError } from "../../contracts/index.ts";
import { readJsonable, rethrowAsCommandError } from "../aas-input.ts";

/**
 * Arguments of an invocation against the Operation's declared variables (AAS Part 2 OperationRequest,
 * digest §g). Matching is by idShort, as FA³ST does, with its default mode REQUIRE_PRESENT_OR_DEFAULT:
 * an undeclared or repeated argument is refused, a declared one left out is a copy of its declaration
 * (the value in the model is the default). Stricter than FA³ST, the kind and valueType must be the
 * declared ones and values must be valid for their valueType: an asset should never see a request
 * the model says is malformed.
 */

export type Direction = "input" | "inoutput" | "output";

export interface OperationDeclaration {
  input: ElementJson[];
  inoutput: ElementJson[];
  output: ElementJson[];
}

export interface OperationRequest {
  inputArguments: ElementJson[];
  inoutputArguments: ElementJson[];
  /** The raw clientTimeoutDuration, checked by the caller (it means something only for sync calls). */
  clientTimeoutDuration?: unknown;
}

const VARIABLES_KEY: Record<Direction, string> = {
  input: "inputVariables",
  inoutput: "inoutputVariables",
  output: "outputVariables",
};
const REQUEST_KEYS = ["inputArguments", "inoutputArguments", "clientTimeoutDuration"];

/** The declared variables of an Operation element: the `value` of each OperationVariable. */
export function declarationOf(operation: ElementJson): OperationDeclaration {
  const variables = (direction: Direction) => {
    const list = operation[VARIABLES_KEY[direction]];
    return Array.isArray(list) ? list.map((variable) => (variable as { value: ElementJson }).value) : [];
  };
  return { input: variables("input"), inoutput: variables("inoutput"), output: variables("output") };
}

/**
 * Read an OperationRequest (valueOnly false) or OperationRequestValueOnly body. An empty body is an
 * empty request: an Operation without inputs needs none.
 */
export function readOperationRequest(
  body: string,
  valueOnly: boolean,
  declaration: OperationDeclaration,
): OperationRequest {
  const request = parseRequestObject(body, valueOnly);
  const argumentsOf = (key: "inputArguments" | "inoutputArguments", direction: Direction): ElementJson[] => {
    const given = request[key];
    if (given === undefined) return matchArguments(declaration[direction], [], direction);
    const elements = valueOnly
      ? valueOnlyArguments(given, key, direction, declaration[direction])
      : fullArguments(given, key);
    return matchArguments(declaration[direction], elements, direction);
  };
  return {
    inputArguments: argumentsOf("inputArguments", "input"),
    inoutputArguments: argumentsOf("inoutputArguments", "inoutput"),
    ...(request.clientTimeoutDuration !== undefined ? { clientTimeoutDuration: request.clientTimeoutDuration } : {}),
  };
}

/**
 * Check arguments against declared variables and answer them in declaration order, a missing one
 * taken from its declaration. Throws CommandError("bad-request") naming the first problem.
 */
export function matchArguments(declared: ElementJson[], given: ElementJson[], direction: Direction): ElementJson[] {
  const byIdShort = new Map<string, ElementJson>();
  for (const argument of given) {
    const idShort = argument.idShort;
    if (typeof idShort !== "string")
      throw new CommandError(
        "bad-request",
        `Every ${direction} argument needs the idShort of a declared ${direction} variable`,
      );
    if (byIdShort.has(idShort))
      throw new CommandError("bad-request", `The ${direction} argument '${idShort}' is given more than once`);
    const variable = declared.find((v) => v.idShort === idShort);
    if (!variable) throw undeclared(idShort, direction, declared);
    checkFits(argument, variable, `The ${direction} argument '${idShort}'`);
    byIdShort.set(idShort, argument);
  }
  return declared.map((variable) => byIdShort.get(variable.idShort as string) ?? structuredClone(variable));
}

/**
 * An argument in the full form has the shape of its variable all the way down: the same kind and
 * valueType, in a collection only declared children (each fitting its own), in a list only items of
 * the declared kind and valueType. The ValueOnly form gets this from being applied to the variable;
 * without it the full form let an asset receive a Blob where the model declares an xs:int.
 */
function checkFits(argument: ElementJson, variable: ElementJson, what: string): void {
  if (argument.modelType !== variable.modelType)
    throw new CommandError(
      "bad-request",
      `${what} must be a ${String(variable.modelType)}, not a ${String(argument.modelType)}`,
    );
  if (variable.valueType !== undefined && argument.valueType !== variable.valueType)
    throw new CommandError(
      "bad-request",
      `${what} must have valueType ${String(variable.valueType)}, not ${String(argument.valueType)}`,
    );
  const children = (element: ElementJson) => (Array.isArray(element.value) ? (element.value as ElementJson[]) : []);
  if (variable.modelType === "SubmodelElementCollection") {
    for (const child of children(argument)) {
      const declaredChild = children(variable).find((c) => c.idShort === child.idShort);
      if (!declaredChild)
        throw new CommandError(
          "bad-request",
          `${what} has '${String(child.idShort)}', which its variable does not declare`,
        );
      checkFits(child, declaredChild, `${what}.${String(child.idShort)}`);
    }
  } else if (variable.modelType === "SubmodelElementList") {
    children(argument).forEach((item, i) => {
      if (item.modelType !== variable.typeValueListElement)
        throw new CommandError(
          "bad-request",
          `${what}[${i}] must be a ${String(variable.typeValueListElement)}, not a ${String(item.modelType)}`,
        );
      if (variable.valueTypeListElement !== undefined && item.valueType !== variable.valueTypeListElement)
        throw new CommandError(
          "bad-request",
          `${what}[${i}] must have valueType ${String(variable.valueTypeListElement)}, not ${String(item.valueType)}`,
        );
    });
  }
}

/** OperationVariables `{ value: element }` as the full form of a result carries them. */
export function asVariables(elements: ElementJson[]): { value: ElementJson }[] {
  return elements.map((value) => ({ value }));
}

function parseRequestObject(body: string, valueOnly: boolean): Record<string, unknown> {
  if (typeof body !== "string" || body.trim() === "") return {};
  let parsed: unknown;
  try {
    // ValueOnly numbers keep every digit (xs:decimal, xs:long); the full form carries strings only.
    parsed = valueOnly ? parseJsonLossless(body) : parseJsonText(body);
  } catch (error) {
    rethrowAsCommandError(error);
  }
  const form = valueOnly ? "OperationRequestValueOnly" : "OperationRequest";
  if (!isPlainObject(parsed)) throw new CommandError("bad-request", `The body must be an ${form} object`);
  for (const key of Object.keys(parsed)) {
    if (!REQUEST_KEYS.includes(key))
      throw new CommandError(
        "bad-request",
        `Unknown property '${key}' in the ${form} (allowed: ${REQUEST_KEYS.join(", ")})`,
      );
  }
  return parsed;
}

/** Full form: a list of OperationVariables, each read (and verified) as a SubmodelElement. */
function fullArguments(given: unknown, key: string): ElementJson[] {
  if (!Array.isArray(given))
    throw new CommandError("bad-request", `${key} must be a list of OperationVariables ({"value": <SubmodelElement>})`);
  return given.map((variable, i) => {
    if (!isPlainObject(variable) || !("value" in variable) || Object.keys(variable).some((k) => k !== "value")) {
      throw new CommandError("bad-request", `${key}[${i}] must be an OperationVariable: an object with only "value"`, {
        path: `${key}[${i}]`,
      });
    }
    return readJsonable(variable.value, "SubmodelElement", true);
  });
}

/** ValueOnly form: {"<idShort>": value}, each value applied to a copy of its declared variable. */
function valueOnlyArguments(given: unknown, key: string, direction: Direction, declared: ElementJson[]): ElementJson[] {
  if (!isPlainObject(given))
    throw new CommandError("bad-request", `${key} must be an object of argument values by idShort`);
  return Object.entries(given).map(([idShort, value]) => {
    const variable = declared.find((v) => v.idShort === idShort);
    if (!variable) throw undeclared(idShort, direction, declared);
    try {
      return applyValueOnly(variable, value, { path: `${key}.${idShort}` });
    } catch (error) {
      if (error instanceof AasError)
        throw new CommandError("bad-request", error.message, { path: error.path, details: error.details });
      throw error;
    }
  });
}

function undeclared(idShort: string, direction: Direction, declared: ElementJson[]): CommandError {
  const known = declared.map((v) => `'${String(v.idShort)}'`).join(", ") || "none";
  return new CommandError(
    "bad-request",
    `'${idShort}' is not a declared ${direction} variable of this Operation (declared: ${known})`,
  );
}
