export * from "./errors.ts";
export * from "./replies.ts";
export * from "./events.ts";
export * from "./modifiers.ts";
export * from "./commands.ts";
export * from "./subjects.ts";
export * from "./profiles.ts";
export * from "./failure-reply.ts";
