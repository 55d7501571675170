export * from "./ports/index.ts";
