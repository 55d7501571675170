import type { Msg, NatsConnection } from "@nats-io/nats-core";
import { batchSubject, type ReplyFailure } from "../contracts/index.ts";
import { decodeReplyBatch, encodeCommandBatch } from "./batch-wire.ts";
import { ChunkAssembler, isChunk } from "./chunking.ts";
import type { PublishBatch } from "./publish-batch.ts";
import { isNoResponders, type RawValueMode } from "./wire.ts";

/**
 * Command batches on the gateway's side of the bus (docs/adr/0042): the writes for one model-store
 * replica that arrive in one event-loop turn go out as ONE message instead of one each, and are
 * answered in a few messages instead of one each. Per replica a lane: its writes leave at the end of
 * the current turn (alone, as the single command it always was, when it is alone: an idle gateway
 * sends what it sent before). The store answers a batch's commands as they are done (batch-wire.ts).
 *
 * Optionally (`maxInFlight`) a lane holds writes while that many sends are out, until the first
 * answers of one come (classic group commit: larger batches); bounded by `holdMaxMs`, so a batch
 * that gets no answer (a replica that died) does not hold the next ones longer than that.
 */

/** One command waiting in a lane; implemented by the store client's pending request. */
export interface LaneItem {
  readonly body: Uint8Array;
  readonly rawValue: RawValueMode;
  /** Epoch ms after which the caller no longer waits. */
  readonly deadline: number;
  /** Answered or given up already (timed out, abandoned): not to be sent. */
  settled(): boolean;
  /** Set by the lane while the item is out; the item calls it once when it settles. */
  onSettled: (() => void) | undefined;
  /** Marks it handed to nats: from now on its outcome is unknown until answered. */
  markSent(): void;
  /** Its reply, a single command's reply bytes (wire.ts encodeReply). */
  receiveData(data: Uint8Array): void;
  /** An answer without a reply of its own (a broken batch reply, a failed publish). */
  fail(reply: ReplyFailure): void;
  /** Send it alone: to its replica, or (`anyReplica`) to the queue group any replica serves. */
  sendAlone(anyReplica: boolean): void;
}

export interface CommandLanesOptions {
  connection: NatsConnection;
  batch: PublishBatch;
  /** Registers a reply token of the client's inbox (`<inbox>.<token>`); returns the reply subject. */
  listen(token: string, receive: (msg: Msg) => void): string;
  unlisten(token: string): void;
  /** The replica is known and takes batches. */
  takesBatches(replicaId: string): boolean;
  /** The server had no subscriber for the replica's batches: it stopped or died. */
  forget(replicaId: string): void;
  /** Largest body of one message. */
  maxBytes(): number;
  /**
   * Sends of one lane out at once before the next writes wait for the first answers of one. Default
   * unbounded: every turn's writes leave at the end of that turn, none is held. Holding (1 or 2 out)
   * made larger batches but cost more through HTTP: the store then got a few writes, committed them
   * in a script call of their own while the gateway held the rest, which it would otherwise have
   * grouped with them (measured: docs/benchmarks.md, "Command batches").
   */
  maxInFlight?: number;
  /** Longest a write waits for the lane's batch in flight before it is sent anyway. Default 20 ms. */
  holdMaxMs?: number;
}

/** At most this many commands in one batch (bounds the store's one reply and its wait). */
const MAX_BATCH_ITEMS = 256;
/** Per item: the envelope around its command (`{"b":…,"r":"items","c":…}` and a comma). */
const ITEM_OVERHEAD_BYTES = 40;

export interface CommandLanes {
  add(replicaId: string, item: LaneItem): void;
  close(): void;
}

export function createCommandLanes(options: CommandLanesOptions): CommandLanes {
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  const holdMaxMs = options.holdMaxMs ?? 20;
  const lanes = new Map<string, Lane>();
  let nextToken = 0;
  let closed = false;

  interface Lane {
    readonly replicaId: string;
    queue: LaneItem[];
    inFlight: number;
    flushScheduled: boolean;
    holdTimer: NodeJS.Timeout | undefined;
  }

  const scheduleFlush = (lane: Lane) => {
    if (lane.flushScheduled || closed) return;
    lane.flushScheduled = true;
    options.batch.beforeFlush(() => flush(lane));
  };

  /**
   * One send of a lane (a batch or a lone command) holds the lane until its first item settles (the
   * store's first answers): then the writes that came meanwhile may leave. `done` once all settled.
   */
  const track = (lane: Lane, items: LaneItem[], done: () => void) => {
    lane.inFlight++;
    let outstanding = items.length;
    let holding = true;
    const release = () => {
      if (!holding) return;
      holding = false;
      lane.inFlight--;
      if (lane.queue.length > 0) scheduleFlush(lane);
      else if (lane.inFlight === 0 && !lane.flushScheduled) lanes.delete(lane.replicaId);
    };
    for (const item of items)
      item.onSettled = () => {
        item.onSettled = undefined;
        release();
        if (--outstanding === 0) done();
      };
    return release;
  };

  function flush(lane: Lane): void {
    lane.flushScheduled = false;
    if (lane.holdTimer !== undefined) {
      clearTimeout(lane.holdTimer);
      lane.holdTimer = undefined;
    }
    if (closed) return;
    const live = lane.queue.filter((item) => !item.settled());
    lane.queue = [];
    if (live.length === 0) return;
    // The replica stopped announcing batches meanwhile: each goes alone, wherever it can.
    if (!options.takesBatches(lane.replicaId)) {
      for (const item of live) item.sendAlone(true);
      return;
    }
    const limit = options.maxBytes();
    let start = 0;
    while (start < live.length) {
      let end = start;
      let bytes = 2;
      while (
        end < live.length &&
        end - start < MAX_BATCH_ITEMS &&
        (end === start || bytes + live[end]!.body.length + ITEM_OVERHEAD_BYTES <= limit)
      ) {
        bytes += live[end]!.body.length + ITEM_OVERHEAD_BYTES;
        end++;
      }
      send(lane, live.slice(start, end));
      start = end;
    }
  }

  function send(lane: Lane, items: LaneItem[]): void {
    if (items.length === 1) {
      const [item] = items as [LaneItem];
      track(lane, items, () => {});
      item.sendAlone(false);
      return;
    }
    const now = Date.now();
    const budgets = items.map((item) => Math.max(1, item.deadline - now));
    const token = `b${++nextToken}`;
    let data: Uint8Array;
    try {
      data = encodeCommandBatch(
        items.map((item, i) => ({ budgetMs: budgets[i]!, rawValue: item.rawValue, command: item.body })),
      );
    } catch (error) {
      for (const item of items) item.fail(failure("internal", `a command batch: ${(error as Error).message}`));
      return;
    }
    const release = track(lane, items, () => options.unlisten(token));
    let assembler: ChunkAssembler | undefined;
    const reply = options.listen(token, (msg) => {
      try {
        if (isNoResponders(msg)) {
          // Delivered to nobody, so none of them ran: each goes alone to any replica.
          options.forget(lane.replicaId);
          release();
          options.unlisten(token);
          for (const item of items) {
            item.onSettled = undefined;
            if (!item.settled()) item.sendAlone(true);
          }
          return;
        }
        const whole = isChunk(msg) ? (assembler ??= new ChunkAssembler()).addMessage(msg) : msg.data;
        if (!whole) return;
        assembler = undefined;
        const replies = decodeReplyBatch(whole, items.length);
        if (replies === undefined) for (const item of items) item.receiveData(whole);
        else for (const { index, data } of replies) items[index]!.receiveData(data);
      } catch (error) {
        for (const item of items) item.fail(failure("internal", `broken batch reply: ${(error as Error).message}`));
      }
    });
    for (const item of items) item.markSent();
    options.batch.publish(batchSubject(lane.replicaId), data, { reply }, (error) => {
      for (const item of items) item.fail(failure("unavailable", (error as Error).message));
    });
  }

  return {
    add(replicaId, item) {
      let lane = lanes.get(replicaId);
      if (!lane) {
        lane = { replicaId, queue: [], inFlight: 0, flushScheduled: false, holdTimer: undefined };
        lanes.set(replicaId, lane);
      }
      lane.queue.push(item);
      if (lane.inFlight < maxInFlight) return scheduleFlush(lane);
      // Held for the batch in flight; but not longer than holdMaxMs.
      if (lane.holdTimer === undefined && !lane.flushScheduled) {
        const held = lane;
        held.holdTimer = setTimeout(() => {
          held.holdTimer = undefined;
          scheduleFlush(held);
        }, holdMaxMs);
        held.holdTimer.unref();
      }
    },
    close() {
      closed = true;
      for (const lane of lanes.values()) if (lane.holdTimer !== undefined) clearTimeout(lane.holdTimer);
      lanes.clear();
    },
  };
}

function failure(code: ReplyFailure["error"]["code"], message: string): ReplyFailure {
  return { ok: false, error: { code, message } };
}
