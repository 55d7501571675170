/**
 * JSONPath, the query language of FA³ST's `query` and `queries` (Jayway syntax), over documents
 * parsed with lossless numbers. The subset asset payloads use: `$`, `.name`, `['name']`, `[n]`
 * (negative from the end), `[a,b]`, `[start:end]`, `*`, `..name` (recursive descent) and filters
 * `[?(@.x == 1 && @.y)]` with == != < <= > >=, && and ||. Written here rather than taken from a
 * library: the common ones evaluate filter text as JavaScript, and a configuration file should
 * never be able to run code.
 */
import { isPlainObject } from "@twinport/shared";
import { isLosslessNumber } from "lossless-json";

export class JsonPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonPathError";
  }
}

type Selector =
  | { kind: "names"; names: string[] }
  | { kind: "indexes"; indexes: number[] }
  | { kind: "slice"; start?: number; end?: number }
  | { kind: "wildcard" }
  | { kind: "filter"; test: Filter };

interface Step {
  descendant: boolean;
  selector: Selector;
}

type Operand = { kind: "path"; steps: Step[] } | { kind: "literal"; value: unknown };
type Filter =
  | { kind: "compare"; op: string; left: Operand; right: Operand }
  | { kind: "exists"; operand: Operand }
  | { kind: "and" | "or"; left: Filter; right: Filter };


class Parser {
  private at = 0;
  constructor(private readonly text: string) {}

  fail(why: string): never {
    throw new JsonPathError(`Invalid JSONPath "${this.text}" at position ${this.at}: ${why}`);
  }
  peek(ahead = 0): string | undefined {
    return this.text[this.at + ahead];
  }
  eat(expected: string): boolean {
    if (this.text.startsWith(expected, this.at)) {
      this.at += expected.length;
      return true;
    }
    return false;
  }
  expect(expected: string): void {
    if (!this.eat(expected)) this.fail(`expected "${expected}"`);
  }
  skipSpaces(): void {
    while (this.peek() === " ") this.at++;
  }
  done(): boolean {
    return this.at >= this.text.length;
  }

  /** Steps after "$" or "@"; stops at anything that cannot continue a path. */
  steps(inFilter: boolean): Step[] {
    const steps: Step[] = [];
    for (;;) {
      if (this.eat("..")) {
        steps.push({ descendant: true, selector: this.peek() === "[" ? this.bracket() : this.dotName() });
      } else if (this.eat(".")) {
        steps.push({ descendant: false, selector: this.dotName() });
      } else if (this.peek() === "[") {
        steps.push({ descendant: false, selector: this.bracket() });
      } else if (this.done() || inFilter) {
        return steps;
      } else {
        this.fail('expected ".", ".." or "["');
      }
    }
  }

  dotName(): Selector {
    if (this.eat("*")) return { kind: "wildcard" };
    const match = /^[^.[\]\s()=!<>&|,]+/.exec(this.text.slice(this.at));
    if (!match) this.fail("expected a property name");
    this.at += match[0].length;
    return { kind: "names", names: [match[0]] };
  }

  bracket(): Selector {
    this.expect("[");
    this.skipSpaces();
    let selector: Selector;
    if (this.eat("*")) selector = { kind: "wildcard" };
    else if (this.eat("?")) {
      this.skipSpaces();
      this.expect("(");
      const test = this.orFilter();
      this.skipSpaces();
      this.expect(")");
      selector = { kind: "filter", test };
    } else if (this.peek() === "'" || this.peek() === '"') {
      const names = [this.quoted()];
      for (this.skipSpaces(); this.eat(","); this.skipSpaces()) {
        this.skipSpaces();
        names.push(this.quoted());
      }
      selector = { kind: "names", names };
    } else selector = this.indexesOrSlice();
    this.skipSpaces();
    this.expect("]");
    return selector;
  }

  integer(): number | undefined {
    const match = /^-?\d+/.exec(this.text.slice(this.at));
    if (!match) return undefined;
    this.at += match[0].length;
    return Number(match[0]);
  }

  indexesOrSlice(): Selector {
    const first = this.integer();
    this.skipSpaces();
    if (this.eat(":")) {
      this.skipSpaces();
      return { kind: "slice", start: first, end: this.integer() };
    }
    if (first === undefined) this.fail("expected an index, a quoted name, *, a slice or a filter");
    const indexes = [first];
    for (this.skipSpaces(); this.eat(","); this.skipSpaces()) {
      this.skipSpaces();
      const next = this.integer();
      if (next === undefined) this.fail("expected an index");
      indexes.push(next);
    }
    return { kind: "indexes", indexes };
  }

  quoted(): string {
    const quote = this.peek()!;
    this.at++;
    let value = "";
    while (!this.done() && this.peek() !== quote) {
      if (this.peek() === "\\") this.at++;
      value += this.peek() ?? "";
      this.at++;
    }
    this.expect(quote);
    return value;
  }

  orFilter(): Filter {
    let left = this.andFilter();
    for (this.skipSpaces(); this.eat("||"); this.skipSpaces()) left = { kind: "or", left, right: this.andFilter() };
    return left;
  }

  andFilter(): Filter {
    let left = this.comparison();
    for (this.skipSpaces(); this.eat("&&"); this.skipSpaces()) left = { kind: "and", left, right: this.comparison() };
    return left;
  }

  comparison(): Filter {
    this.skipSpaces();
    if (this.eat("(")) {
      const inner = this.orFilter();
      this.skipSpaces();
      this.expect(")");
      return inner;
    }
    const left = this.operand();
    this.skipSpaces();
    const op = ["==", "!=", "<=", ">=", "<", ">"].find((candidate) => this.eat(candidate));
    if (op === undefined) return { kind: "exists", operand: left };
    this.skipSpaces();
    return { kind: "compare", op, left, right: this.operand() };
  }

  operand(): Operand {
    if (this.eat("@")) return { kind: "path", steps: this.steps(true) };
    if (this.peek() === "'" || this.peek() === '"') return { kind: "literal", value: this.quoted() };
    for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) if (this.eat(word)) return { kind: "literal", value };
    const match = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at));
    if (!match) this.fail("expected @…, a number, a quoted string, true, false or null");
    this.at += match[0].length;
    return { kind: "literal", value: Number(match[0]) };
  }
}

export interface JsonPath {
  readonly text: string;
  /** Every match, in document order. */
  evaluate(document: unknown): unknown[];
}

export function compileJsonPath(text: string): JsonPath {
  const parser = new Parser(text.trim());
  if (!parser.eat("$")) parser.fail('a JSONPath starts with "$"');
  const steps = parser.steps(false);
  return { text, evaluate: (document) => run(steps, [document]) };
}

/** The one value a query selects; none or several is an error (FA³ST's rule). */
export function queryOne(document: unknown, path: JsonPath): unknown {
  const found = path.evaluate(document);
  if (found.length !== 1) throw new JsonPathError(`JSONPath "${path.text}" matched ${found.length === 0 ? "nothing" : `${found.length} values`} (exactly one is needed)`);
  return found[0];
}

function run(steps: Step[], start: unknown[]): unknown[] {
  let current = start;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const node of current) {
      const candidates = step.descendant ? [node, ...descendants(node)] : [node];
      for (const candidate of candidates) next.push(...select(step.selector, candidate));
    }
    current = next;
  }
  return current;
}

function descendants(node: unknown): unknown[] {
  const children = Array.isArray(node) ? node : isPlainObject(node) ? Object.values(node) : [];
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function select(selector: Selector, node: unknown): unknown[] {
  switch (selector.kind) {
    case "names":
      return isPlainObject(node) ? selector.names.filter((name) => Object.hasOwn(node, name)).map((name) => node[name]) : [];
    case "indexes":
      if (!Array.isArray(node)) return [];
      return selector.indexes.map((i) => (i < 0 ? node.length + i : i)).filter((i) => i >= 0 && i < node.length).map((i) => node[i]);
    case "slice": {
      if (!Array.isArray(node)) return [];
      return node.slice(selector.start ?? 0, selector.end ?? node.length);
    }
    case "wildcard":
      return Array.isArray(node) ? [...node] : isPlainObject(node) ? Object.values(node) : [];
    case "filter": {
      const items = Array.isArray(node) ? node : isPlainObject(node) ? Object.values(node) : [];
      return items.filter((item) => holds(selector.test, item));
    }
  }
}

function operandValues(operand: Operand, item: unknown): unknown[] {
  return operand.kind === "literal" ? [operand.value] : run(operand.steps, [item]);
}

function comparable(value: unknown): unknown {
  return isLosslessNumber(value) ? Number(value.value) : value;
}

function holds(filter: Filter, item: unknown): boolean {
  switch (filter.kind) {
    case "and":
      return holds(filter.left, item) && holds(filter.right, item);
    case "or":
      return holds(filter.left, item) || holds(filter.right, item);
    case "exists":
      return operandValues(filter.operand, item).length > 0;
    case "compare": {
      const [left] = operandValues(filter.left, item);
      const [right] = operandValues(filter.right, item);
      if (left === undefined || right === undefined) return false;
      const a = comparable(left);
      const b = comparable(right);
      switch (filter.op) {
        case "==":
          return a === b;
        case "!=":
          return a !== b;
        default: {
          if (!((typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string"))) return false;
          if (filter.op === "<") return a < b;
          if (filter.op === "<=") return a <= b;
          if (filter.op === ">") return a > b;
          return a >= b;
        }
      }
    }
  }
}
