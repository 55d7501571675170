import type forgeModule from "node-forge";

export type Forge = typeof forgeModule;

/**
 * node-forge is loaded on first use only: most processes never read a key store, and it is a
 * few hundred kilobytes of JavaScript to parse at start-up.
 */
let forgeLoaded: Promise<Forge> | undefined;
export function loadForge(): Promise<Forge> {
  forgeLoaded ??= import("node-forge").then((module) => (module as unknown as { default: Forge }).default ?? (module as unknown as Forge));
  return forgeLoaded;
}
