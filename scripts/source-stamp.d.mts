// Types of source-stamp.mjs, which runs before anything is compiled and so is plain JavaScript.
export function filesUnder(dir: string): Promise<string[]>;
export function sourceHash(root: string, paths: string[]): Promise<string>;
export function staleness(build: { hash: string; stampFile: string; outputs?: string[] }): Promise<string | null>;
export function writeStamp(stampFile: string, hash: string): Promise<void>;
