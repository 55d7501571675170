// The explicit surface of @twinport/http-gateway.

export { type Authenticator, createAuthenticator } from "./authentication/authenticate.ts";
export { type Challenge, unauthenticatedResponse } from "./authentication/unauthenticated-response.ts";
export { createHttpApp, type HttpAppDeps } from "./create-http-app.ts";
export { EventHub, type EventHubDeps } from "./events/event-hub.ts";
export { rulesGrantBySemanticId } from "./events/semantic-grants.ts";
export {
  DEFAULT_HTTP_ENDPOINT_SETTINGS,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  type HttpEndpointSettings,
  httpEndpointSettings,
} from "./http-endpoint-settings.ts";
export { startHttpGateway } from "./http-gateway-process.ts";
export { PROFILE_NAMES, type ProfileName } from "./profiles.ts";
export { type HttpEndpointDeps, type RunningHttpEndpoint, startHttpEndpoint } from "./start-http-endpoint.ts";
