/** What a handler returns; the engine wraps it into a Reply. */
export interface Handled<T> {
  value: T;
  revision?: number;
  idShortPath?: string;
  /** An element addressed through a list index: its orderKey (ReplyOk.item, preconditions.ts itemOf). */
  item?: string;
}
