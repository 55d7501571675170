// Types of bin/heap-settings.js (plain JavaScript: bin/twinport.js runs before any TypeScript loader).
export declare const YOUNG_CAP_BYTES: number;
export declare const HEAP_FLAGS: string[];
export declare function applyHeapSettings(execArgv?: string[], nodeOptions?: string, role?: string): boolean;
export declare function roleOfArguments(argv?: string[]): string;
export declare function startUpDone(): void;
export declare function servesNoOpcUa(): void;
