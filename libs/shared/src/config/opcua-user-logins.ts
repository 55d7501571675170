import { type EndpointConfig, isOpcUaEndpoint } from "./endpoints.ts";

/** What a process serving these endpoints should refuse (ConfigError issues) or warn about. */
export interface UserLoginFindings {
  issues: string[];
  warnings: string[];
}

/**
 * UserName logins are checked against `userMap` only (spec §5.1), so an endpoint listing UserName
 * with no user in it refuses every such login. With UserName the only way in, nobody could ever
 * open a session, and the endpoint would still start and look healthy: refused here, by the
 * processes that serve OPC UA only. The model-store and the http-gateway read the same file and
 * never see the users (examples/compose-secured.yml gives them to the opcua-gateway alone).
 * With another authentication beside it the endpoint is usable, so a warning says UserName is not.
 *
 * Checked after validation, with the endpoints at the indexes the overrides used.
 */
export function opcuaUserLoginFindings(endpoints: readonly EndpointConfig[]): UserLoginFindings {
  const found: UserLoginFindings = { issues: [], warnings: [] };
  endpoints.forEach((endpoint, index) => {
    if (!isOpcUaEndpoint(endpoint)) return;
    const authentications = new Set(endpoint.supportedAuthentications);
    const at = `endpoints[${index}].userMap`;
    // A login anyone can guess: said at every start, as the open security stance is.
    const withoutPassword = Object.entries(endpoint.userMap)
      .filter(([, password]) => password === "")
      .map(([user]) => `'${user}'`);
    if (authentications.has("UserName") && withoutPassword.length > 0)
      found.warnings.push(
        `'${at}' gives ${withoutPassword.join(", ")} an empty password: a UserName login with that name and no password opens a session on this OPC UA endpoint. Give every user a password`,
      );
    if (!authentications.has("UserName") || Object.keys(endpoint.userMap).length > 0) return;
    if (authentications.size === 1)
      found.issues.push(
        `Missing '${at}': supportedAuthentications lists UserName only, and a UserName login is checked against userMap, which names no user, so no client could ever open a session. Add users (user name → password, e.g. TWINPORT_ENDPOINTS_${index}_USERMAP='{"operator":"a long password"}'), or list Anonymous or Certificate too`,
      );
    else {
      const others = [...authentications].filter((name) => name !== "UserName").join(" and ");
      found.warnings.push(
        `'${at}' names no user, so every UserName login on this OPC UA endpoint is refused; clients get in with ${others} only. Add users to userMap, or drop UserName from supportedAuthentications`,
      );
    }
  });
  return found;
}
