/**
 * The bearer token the person pasted, kept in sessionStorage: per tab, gone when the tab closes,
 * never on the server (the gateways keep no session, so any of them can answer any request).
 */
const KEY = "twinport.console.token";

type Listener = () => void;
/** Told when the token itself changes: what the server shows may differ now. */
const tokenListeners = new Set<Listener>();
/** Told when the form should change: a token is wanted, or was given. */
const formListeners = new Set<Listener>();
let wanted: string | undefined;

export function currentToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function setToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
  wanted = undefined;
  notify(tokenListeners);
  notify(formListeners);
}

/** Why the API wants a (new) token, while it does; the token form shows it. */
export function tokenWanted(): string | undefined {
  return wanted;
}

/**
 * Called on a 401: the form asks for a token. The first reason stays: several requests refused at
 * once must not make the form (or anything else) change over and over.
 */
export function askForToken(reason: string): void {
  if (wanted !== undefined) return;
  wanted = reason;
  notify(formListeners);
}

export function onTokenChange(listener: Listener): () => void {
  tokenListeners.add(listener);
  return () => tokenListeners.delete(listener);
}

export function onTokenFormChange(listener: Listener): () => void {
  formListeners.add(listener);
  return () => formListeners.delete(listener);
}

function notify(listeners: Set<Listener>): void {
  for (const listener of listeners) listener();
}
