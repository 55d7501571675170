/**
 * The store incarnations one event subscription has heard of in heartbeats (docs/adr/0018,
 * amendment "Redis that comes back empty"). The first one heard is where the subscription starts;
 * one never heard before means Redis lost the store's data and a model-store opened it afresh.
 * An incarnation heard before is not news: for a second or so after a wipe, a replica that has not
 * noticed yet may still name the old one, and flapping between the two would resync each time.
 */
export interface StoreIncarnations {
  /** True when `incarnation` is new and an earlier one was known: the store's data was replaced. */
  replaced(incarnation: string | undefined): boolean;
}

export function storeIncarnations(): StoreIncarnations {
  const seen = new Set<string>();
  return {
    replaced(incarnation) {
      // An older model-store names none: nothing to tell.
      if (incarnation === undefined || seen.has(incarnation)) return false;
      seen.add(incarnation);
      return seen.size > 1;
    },
  };
}
