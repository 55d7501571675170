import type { SendCommand } from "../http/command-sender.ts";

/** What every route file needs: a way to reach the store. */
export interface RouteDeps {
  send: SendCommand;
}
