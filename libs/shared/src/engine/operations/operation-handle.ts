import { FINAL_EXECUTION_STATES, type OperationResult } from "../../contracts/index.ts";

/**
 * What the store keeps per asynchronous invocation (Repository.putOperationHandle): where it runs,
 * who runs it and how far it got. The store sees only JSON text and a version.
 */
export interface OperationHandleRecord {
  handleId: string;
  submodelId: string;
  idShortPath: string;
  /** Runner id of the process executing it; its lease tells whether that process still lives. */
  owner: string;
  createdAt: string;
  /** The current state; a final one carries the whole result. */
  result: OperationResult;
}

export function isFinished(record: OperationHandleRecord): boolean {
  return FINAL_EXECUTION_STATES.includes(record.result.executionState);
}

export function parseHandle(json: string): OperationHandleRecord {
  return JSON.parse(json) as OperationHandleRecord;
}
