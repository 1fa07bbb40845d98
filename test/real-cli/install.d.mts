// Types of install.mjs (a plain script, so that `npm test` can run it before any build).
export declare const REAL_CLI_BIN: string;
export declare const REAL_CLIS: string[];
export declare function realClisInstalled(): boolean;
export declare function ensureRealClis(): void;
