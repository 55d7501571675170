import type { IdentifiableKind } from "@twinport/shared";

/**
 * The Redis key layout of the store. Every key carries ONE hash tag, `{<prefix>}` (`{tp}` by
 * default), so every key lives in one slot and the multi-key commit script also runs on Redis
 * Cluster. Ids appear base64url-encoded inside key names; ids and idShortPaths are raw inside hash
 * fields and sorted-set members.
 *
 *   {tp}:seq                     string  the global sequence; INCR'd by every commit
 *   {tp}:kinds                   hash    id → kind (ids are unique across kinds: the id-free check)
 *   {tp}:ordinal                 string  creation counter that orders identifiables
 *   {tp}:<kind>:rec              hash    id → `<revision>\x01<AAS JSON>` (submodels without elements)
 *   {tp}:<kind>:order            zset    id, scored by its creation ordinal (keyset paging by score)
 *   {tp}:<kind>:index            zset    the filter index (docs/adr/0035): all scores 0, members
 *                                        `<term>\0<ordinal as 16 hex digits><id>`, so ZRANGEBYLEX
 *                                        [T\0 (T\1 is term T's identifiables in creation order
 *   {tp}:<kind>:terms            hash    id → its index terms joined by "\0" (what to take out again)
 *   {tp}:index-version           string  the filter index version this store holds complete; when
 *                                        absent (a store from before it) it is built at start
 *   {tp}:sm:<b64url id>:el       hash    internal path → `<revision>\x01<orderKey>\x01<parentPath>\x01<json>`
 *                                        (the shallow element JSON; orderKey "" = never inserted
 *                                        into a parent). Internal path = the idShortPath with each
 *                                        list index replaced by the item's token `[#<orderKey>]`
 *                                        (docs/adr/0020; `[<index>]` in stores written before it)
 *   {tp}:sm:<b64url id>:order    zset    all scores 0; members `<parentPath>\x01<orderKey>\x01<path>`,
 *                                        so ZRANGEBYLEX [P\x01 (P\x02 is P's children in order
 *                                        (`\x01`/`\x02` sort below every idShort character, so `Temp`
 *                                        never picks up `Temperature`'s children), keyset-pageable
 *   {tp}:sm:<b64url id>:ctr      string  per-submodel counter for orderKeys (list items too: an item's
 *                                        index is its rank in :order, found in O(log n))
 *   {tp}:outbox                  stream  one entry per commit, id `<seq>-0`, fields seq, event
 *                                        (the event draft as JSON text, built in JS)
 *   {tp}:relay:lease             string  owner of the outbox keeper (SET NX PX; the name is the
 *                                        old relay's, ADR 0018); `relay:position` is no longer written
 *   {tp}:incarnation             string  a random id set (NX) when a model-store opens a Redis without
 *                                        one; every commit script call checks it is still the one its
 *                                        process opened (store-incarnation.ts, ADR 0018 amendment)
 *
 * On a Redis Cluster (docs/adr/0040) a submodel's element keys carry a hash tag of their own instead,
 * so the submodels spread over the nodes while everything else stays in the catalog slot `{tp}`:
 *
 *   {tp:sm:<b64url id>}:el / :order / :ctr   as above, one slot per submodel
 *   {tp:sm:<b64url id>}:prep     hash    the lock of a commit in progress on this submodel: token,
 *                                        deadline (ms) and how many stashed values follow
 *   {tp:sm:<b64url id>}:prep:ops list    the stashed content ops of that commit (cluster-commit.ts)
 *   {tp}:pending                 hash    token → the seqs a commit round took and the submodels it
 *                                        still has to apply them to (until every one has)
 *   {tp}:fences                  zset    tokens of rounds given up (their locks were taken away): a
 *                                        late catalog step of such a round is refused
 *
 * Why one packed value per record: a record's JSON and revision can never disagree (they are
 * written together), a point read is one HGET/HMGET, and reading a whole submodel is ONE HGETALL
 * (the parent path and orderKey inside each record give the document order without touching the
 * sorted set). orderKey = 16 lowercase hex digits, so string order is numeric order. Every
 * per-element operation is a hash or sorted-set access on the submodel's own keys, O(1) or
 * O(log n): never a read-modify-write of the whole submodel.
 */
export interface RedisLayout {
  prefix: string;
  /** The filter index of a kind (docs/adr/0035): terms per id and the sorted set of entries. */
  termIndex(kind: IdentifiableKind): { terms: string; index: string };
  /** Version of the filter index this store holds complete; absent = build it (term-index-build.ts). */
  termIndexVersion: string;
  sequence: string;
  kinds: string;
  ordinal: string;
  outbox: string;
  /** The incarnation of this store's data in Redis (store-incarnation.ts). */
  incarnation: string;
  identifiable(kind: IdentifiableKind): { rec: string; order: string };
  submodel(id: string): SubmodelKeys;
  /** Any other key in the same hash tag (leases). */
  key(name: string): string;
  /** SCAN pattern matching every key of this store (on a cluster: its catalog keys). */
  pattern: string;
  /** On a cluster: the SCAN pattern of the submodels' content keys (each node holds some). */
  contentPattern?: string;
  /** Whether submodel content has its own hash tag per submodel (Redis Cluster, ADR 0040). */
  cluster: boolean;
}

export interface SubmodelKeys {
  el: string;
  order: string;
  ctr: string;
  /** Cluster only: the lock and stash of a commit in progress (see above). */
  prep: string;
  prepOps: string;
}

export const IDENTIFIABLE_KINDS: readonly IdentifiableKind[] = ["shell", "submodel", "concept-description"];

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

export function redisLayout(prefix = "tp", options: { cluster?: boolean } = {}): RedisLayout {
  const base = `{${prefix}}:`;
  const key = (name: string) => base + name;
  const cluster = options.cluster === true;
  return {
    prefix,
    termIndex: (kind) => ({ terms: key(`${kind}:terms`), index: key(`${kind}:index`) }),
    termIndexVersion: key("index-version"),
    sequence: key("seq"),
    kinds: key("kinds"),
    ordinal: key("ordinal"),
    outbox: key("outbox"),
    incarnation: key("incarnation"),
    identifiable: (kind) => ({ rec: key(`${kind}:rec`), order: key(`${kind}:order`) }),
    submodel(id) {
      const encoded = Buffer.from(id, "utf8").toString("base64url");
      const sm = cluster ? `{${prefix}:sm:${encoded}}:` : key(`sm:${encoded}:`);
      return { el: `${sm}el`, order: `${sm}order`, ctr: `${sm}ctr`, prep: `${sm}prep`, prepOps: `${sm}prep:ops` };
    },
    key,
    pattern: `${escapeGlob(base)}*`,
    ...(cluster ? { contentPattern: `${escapeGlob(`{${prefix}:sm:`)}*` } : {}),
    cluster,
  };
}

/** 16 lowercase hex digits: the Lua side formats counter ordinals the same way (`%016x`). */
export function orderKeyOf(ordinal: number): string {
  return ordinal.toString(16).padStart(16, "0");
}

/** A stored element record, unpacked (`orderKey` "" = never inserted into a parent). */
export interface ElementRecord {
  revision: number;
  orderKey: string;
  parentPath: string;
  json: string;
}

export function unpackElement(value: string): ElementRecord {
  const a = value.indexOf("\x01");
  const b = value.indexOf("\x01", a + 1);
  const c = value.indexOf("\x01", b + 1);
  return {
    revision: Number(value.slice(0, a)),
    orderKey: value.slice(a + 1, b),
    parentPath: value.slice(b + 1, c),
    json: value.slice(c + 1),
  };
}

export function unpackIdentifiable(value: string): { revision: number; json: string } {
  const a = value.indexOf("\x01");
  return { revision: Number(value.slice(0, a)), json: value.slice(a + 1) };
}
