/**
 * The bearer token (docs/console.md, ADR 0025): asked for when the API answered 401, offered on
 * request (an anonymous caller may see filtered, even empty, lists rather than a 401), and forgotten
 * on request.
 */
import { useEffect, useState } from "preact/hooks";
import { currentToken, onTokenFormChange, setToken, tokenWanted } from "../token.ts";

export function TokenForm() {
  const [, setTick] = useState(0);
  const [draft, setDraft] = useState("");
  const [opened, setOpened] = useState(false);
  useEffect(() => onTokenFormChange(() => setTick((t) => t + 1)), []);
  const reason = tokenWanted();
  if (reason === undefined && !opened)
    return (
      <div class="token-bar">
        {currentToken() ? (
          <>
            Using a bearer token.{" "}
            <button type="button" onClick={() => setToken(undefined)}>
              Forget token
            </button>
          </>
        ) : (
          <>
            Anonymous.{" "}
            <button type="button" onClick={() => setOpened(true)}>
              Use an access token
            </button>
          </>
        )}
      </div>
    );
  return (
    <form
      class="token-form"
      aria-label="Bearer token"
      onSubmit={(event) => {
        event.preventDefault();
        setOpened(false);
        setToken(draft.trim());
        setDraft("");
      }}
    >
      {reason !== undefined ? (
        <p role="alert">The server wants a bearer token: {reason}</p>
      ) : (
        <p>Paste a bearer token from your identity provider.</p>
      )}
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
