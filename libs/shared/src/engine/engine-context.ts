import type { Clock, EventBus, Repository } from "./ports/index.ts";

export interface ValidationSettings {
  /** Metamodel verification of models loaded at start-up (--no-validation turns it off). */
  onLoad: boolean;
  onCreate: boolean;
  onUpdate: boolean;
}

/** What every handler gets: the ports plus settings. */
export interface EngineContext {
  repository: Repository;
  clock: Clock;
  validation: ValidationSettings;
  /** Commit with compare-and-set retries, then publish the event (embedded mode). */
  commit: import("./commit-runner.ts").CommitRunner;
  bus?: EventBus;
}
