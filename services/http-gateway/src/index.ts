// The explicit surface of @twinport/http-gateway.
export { createHttpApp, type HttpAppDeps } from "./create-http-app.ts";
export { startHttpEndpoint, type HttpEndpointDeps, type RunningHttpEndpoint } from "./start-http-endpoint.ts";
export {
  type HttpEndpointSettings,
  DEFAULT_HTTP_ENDPOINT_SETTINGS,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  httpEndpointSettings,
} from "./http-endpoint-settings.ts";
export { PROFILE_NAMES, type ProfileName } from "./profiles.ts";
export { startHttpGateway } from "./http-gateway-process.ts";
export { createAuthenticator, type Authenticator } from "./authentication/authenticate.ts";
export { unauthenticatedResponse, type Challenge } from "./authentication/unauthenticated-response.ts";
