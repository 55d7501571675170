/** What a handler returns; the engine wraps it into a Reply. */
export interface Handled<T> {
  value: T;
  revision?: number;
  idShortPath?: string;
}
