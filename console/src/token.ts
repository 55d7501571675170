/**
 * The bearer token the person pasted, kept in sessionStorage: per tab, gone when the tab closes,
 * never on the server (the gateways keep no session, so any of them can answer any request).
 */
const KEY = "twinport.console.token";

type Listener = () => void;
const listeners = new Set<Listener>();
let wanted: string | undefined;

export function currentToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function setToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
  wanted = undefined;
  notify();
}

/** Why the API wants a (new) token, while it does; the token form shows it. */
export function tokenWanted(): string | undefined {
  return wanted;
}

/** Called on a 401: the form asks for a token. */
export function askForToken(reason: string): void {
  if (wanted === reason) return;
  wanted = reason;
  notify();
}

export function onTokenChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function notify(): void {
  for (const listener of listeners) listener();
}
