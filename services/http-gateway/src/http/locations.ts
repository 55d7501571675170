import { encodeBase64Url } from "@twinport/shared";
import { API_PREFIX } from "./api-routes.ts";

/** Absolute paths of resources, for `Location`: ids unpadded base64url, idShortPaths percent-encoded. */
export function shellLocation(aasId: string): string {
  return `${API_PREFIX}/shells/${encodeBase64Url(aasId)}`;
}

/** The submodel at the mount the client used: below its shell or in the submodel repository. */
export function submodelLocation(scope: { submodelId: string; aasId?: string }): string {
  const submodel = `submodels/${encodeBase64Url(scope.submodelId)}`;
  return scope.aasId === undefined ? `${API_PREFIX}/${submodel}` : `${shellLocation(scope.aasId)}/${submodel}`;
}

export function elementLocation(scope: { submodelId: string; aasId?: string }, idShortPath: string): string {
  // encodeURIComponent keeps "." and escapes "[" "]" as %5B %5D, as the API examples write them.
  return `${submodelLocation(scope)}/submodel-elements/${encodeURIComponent(idShortPath)}`;
}

/** No GET exists at this URL; v3.0.1 still asks for the Location of a created submodel reference. */
export function submodelReferenceLocation(aasId: string, submodelId: string): string {
  return `${shellLocation(aasId)}/submodel-refs/${encodeBase64Url(submodelId)}`;
}

export function conceptDescriptionLocation(cdId: string): string {
  return `${API_PREFIX}/concept-descriptions/${encodeBase64Url(cdId)}`;
}
