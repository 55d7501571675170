/** Asks for a bearer token when the API answered 401 (docs/console.md, ADR 0025), and can forget it. */
import { useEffect, useState } from "preact/hooks";
import { currentToken, onTokenChange, setToken, tokenWanted } from "../token.ts";

export function TokenForm() {
  const [, setTick] = useState(0);
  const [draft, setDraft] = useState("");
  useEffect(() => onTokenChange(() => setTick((t) => t + 1)), []);
  const reason = tokenWanted();
  if (reason === undefined)
    return currentToken() ? (
      <div class="token-bar">
        Signed in with a bearer token.{" "}
        <button type="button" onClick={() => setToken(undefined)}>
          Forget token
        </button>
      </div>
    ) : null;
  return (
    <form
      class="token-form"
      aria-label="Access token"
      onSubmit={(event) => {
        event.preventDefault();
        setToken(draft.trim());
        setDraft("");
      }}
    >
      <p role="alert">The server wants a bearer token: {reason}</p>
      <label>
        Access token{" "}
        <input
          type="password"
          autocomplete="off"
          value={draft}
          onInput={(event) => setDraft((event.target as HTMLInputElement).value)}
        />
      </label>{" "}
      <button type="submit" disabled={draft.trim() === ""}>
        Use token
      </button>
    </form>
  );
}
