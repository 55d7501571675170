import { PacketAssembler } from "node-opcua-packet-assembler";

/**
 * node-opcua-transport (2.186.4) reinstalls a connection's packet assembler when the Hello sets the
 * buffer sizes: it takes every listener off the old one while that one is still splitting the very
 * buffer that held the Hello. Bytes that came in the same TCP segment after it (one write by the
 * client) are then fed to the old assembler, and a chunk header there that exceeds the new limit
 * makes it emit "error" with no listener: an EventEmitter throws that, inside the socket's data
 * handler, and the process died (embedded: the whole server and its in-memory model) from a
 * 70-byte packet anyone who reaches the port can send (black-box finding).
 *
 * An assembler without "error" listeners is one the transport has replaced: what it still emits
 * belongs to nobody, so its error is dropped here instead of thrown. The connection itself goes on
 * with the new assembler, which refuses what the client sends next as node-opcua always does.
 * Installed once per process, before any server listens.
 */
let installed = false;

export function guardReplacedPacketAssemblers(): void {
  if (installed) return;
  installed = true;
  const prototype = PacketAssembler.prototype as unknown as {
    emit(event: string | symbol, ...args: unknown[]): boolean;
    listenerCount(event: string): number;
  };
  const emit = prototype.emit;
  prototype.emit = function guardedEmit(this: typeof prototype, event, ...args) {
    if (event === "error" && this.listenerCount("error") === 0) return false;
    return emit.call(this, event, ...args);
  };
}
