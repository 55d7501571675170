import { badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";

/**
 * The request body as text, handed to the engine unparsed (it checks syntax, unknown properties
 * and keeps exact number digits). Only emptiness is the gateway's business.
 */
export async function requestBodyText(c: GatewayContext): Promise<string> {
  const text = await c.req.text();
  if (text.trim() === "") throw badRequest("The request body is empty; this operation needs a JSON body");
  return text;
}
