// Types of agent-bundle.mjs, for the TypeScript that imports it (the benchmarks).
export declare const NATIVE_PACKAGES: string[];
export declare function bundleAgent(options: { entryPoints: Record<string, string>; outdir: string; nodeMajor: string }): Promise<void>;
