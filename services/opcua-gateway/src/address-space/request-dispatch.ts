import { type OPCUAServer, type Request, ServiceFault, type StatusCode } from "node-opcua";

/**
 * node-opcua's service dispatch as the gateway's request wrappers see it (base_server.ts
 * `on_request`, 2.186.4; ADR 0036): every request passes it before its service runs, an instance
 * method the endpoints call through the server object, so a wrapper replaces it and calls the one
 * it found.
 */
export interface Message {
  request: Request;
}
export type OnRequest = (message: Message, channel: object) => void;
interface Dispatching {
  on_request: OnRequest;
}
/** The channel's answer path, as node-opcua's own services use it for a ServiceFault. */
interface Channel {
  send_response(kind: "MSG", response: ServiceFault, message: Message): void;
}

/** Puts `wrapper` in front of the server's dispatch; it gets the dispatch it replaced. Returns the undo. */
export function wrapRequests(server: OPCUAServer, wrapper: (original: OnRequest) => OnRequest): () => void {
  const dispatching = server as unknown as Dispatching;
  const original = dispatching.on_request;
  const bound: OnRequest = (message, channel) => original.call(server, message, channel);
  dispatching.on_request = wrapper(bound);
  return () => {
    dispatching.on_request = original;
  };
}

/** Answers the request with a ServiceFault of `status` instead of serving it. */
export function answerWithFault(channel: object, message: Message, status: StatusCode): void {
  (channel as Channel).send_response("MSG", new ServiceFault({ responseHeader: { serviceResult: status } }), message);
}
