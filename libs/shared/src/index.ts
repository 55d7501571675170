// The explicit surface of @twinport/shared. Other packages import only from here (or ./test-support in tests, ./command-line in bin/twinport.js).
export * from "./aas/index.ts";
export * from "./authentication/index.ts";
export * from "./bus/index.ts";
export * from "./certificates/index.ts";
export * from "./config/index.ts";
export * from "./contracts/index.ts";
export * from "./engine/index.ts";
export * from "./operability/index.ts";
