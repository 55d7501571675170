import type { OPCUAServer, UserTokenType } from "node-opcua";

/**
 * node-opcua advertises UserName and Certificate token policies on every endpoint whatever is
 * configured (its `userTokenTypes` option is not passed through to the endpoints). Keeping only
 * the configured types in the endpoint descriptions does two things: GetEndpoints shows what a
 * client may use, and ActivateSession refuses any other token, because the server looks the
 * token's policy up in these same descriptions (BadIdentityTokenInvalid when it is missing).
 * Call after initialize(), when the endpoints exist.
 */
export function restrictUserTokenPolicies(server: OPCUAServer, allowed: readonly UserTokenType[]): void {
  for (const endpoint of server.endpoints) {
    for (const description of endpoint.endpointDescriptions()) {
      description.userIdentityTokens = (description.userIdentityTokens ?? []).filter((policy) =>
        allowed.includes(policy.tokenType),
      );
    }
  }
}
