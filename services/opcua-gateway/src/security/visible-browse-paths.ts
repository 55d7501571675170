import {
  type BrowsePathResult,
  type BrowsePathTarget,
  type OPCUAServer,
  PermissionType,
  type SessionContext,
  StatusCodes,
  TranslateBrowsePathsToNodeIdsRequest,
  TranslateBrowsePathsToNodeIdsResponse,
} from "node-opcua";

/** node-opcua's handler of the service and what it runs it with (opcua_server.ts, 2.182–2.186). */
interface Handling {
  _on_TranslateBrowsePathsToNodeIdsRequest: (message: unknown, channel: unknown) => void;
  _apply_on_SessionObject(
    response: typeof TranslateBrowsePathsToNodeIdsResponse,
    message: unknown,
    channel: unknown,
    action: (
      session: { sessionContext: SessionContext },
      sendResponse: (response: TranslateBrowsePathsToNodeIdsResponse) => void,
      sendError: (status: typeof StatusCodes.Good) => void,
    ) => Promise<void>,
  ): void;
}

/**
 * TranslateBrowsePathsToNodeIds answers only with nodes the session may browse. node-opcua's
 * service follows the references without asking the session's permissions (Browse does ask them),
 * so a session could learn the names of elements the rules hide from it by trying paths: a target
 * it may not browse is now no match (BadNoMatch), as a path to nothing is (a black-box finding).
 * The handler is node-opcua's own, with its checks, and the results filtered; it is looked up by
 * name on the server object, so an instance method replaces it for this server only.
 */
export function translateToVisibleNodes(server: OPCUAServer): void {
  const handling = server as unknown as Handling;
  handling._on_TranslateBrowsePathsToNodeIdsRequest = (message, channel) => {
    const request = (message as { request: TranslateBrowsePathsToNodeIdsRequest }).request;
    handling._apply_on_SessionObject(
      TranslateBrowsePathsToNodeIdsResponse,
      message,
      channel,
      async (session, sendResponse, sendError) => {
        const paths = request.browsePaths ?? [];
        if (paths.length === 0) return sendError(StatusCodes.BadNothingToDo);
        const limit = server.engine.serverCapabilities.operationLimits.maxNodesPerTranslateBrowsePathsToNodeIds;
        if (limit > 0 && paths.length > limit) return sendError(StatusCodes.BadTooManyOperations);
        try {
          const results = await server.engine.translateBrowsePaths(paths);
          sendResponse(
            new TranslateBrowsePathsToNodeIdsResponse({
              diagnosticInfos: null,
              results: results.map((result) => visibleTo(server, session.sessionContext, result)),
            }),
          );
        } catch {
          sendError(StatusCodes.BadInternalError);
        }
      },
    );
  };
}

function visibleTo(server: OPCUAServer, context: SessionContext, result: BrowsePathResult): BrowsePathResult {
  const targets = result.targets ?? [];
  if (targets.length === 0) return result;
  const shown = targets.filter((target: BrowsePathTarget) => {
    const node = server.engine.addressSpace?.findNode(target.targetId);
    return node === null || node === undefined || context.checkPermission(node, PermissionType.Browse);
  });
  if (shown.length === targets.length) return result;
  result.targets = shown;
  if (shown.length === 0) result.statusCode = StatusCodes.BadNoMatch;
  return result;
}
