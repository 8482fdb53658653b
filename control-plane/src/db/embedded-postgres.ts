// The embedded database: PGlite (PostgreSQL compiled to WebAssembly) served on a loopback
// socket, so the ordinary driver, MikroORM and the same migrations work unchanged.
import { cpSync, createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable, type Duplex } from 'node:stream';
import v8 from 'node:v8';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { inProcessStream } from './in-process-connection.js';
import { defaultTemplateDir, readTemplate } from './pglite-template.js';

export interface EmbeddedPostgres {
  /** For clients in other processes (tools, tests) and the ones that need a URL. */
  url: string;
  /** A new connection from this process, for the pg driver's `stream` option: no socket (in-process-connection.ts). */
  stream: () => Duplex;
  /** How the data folder came to be: loaded from the template, made by initdb, or already there. */
  initialisedFrom: 'template' | 'initdb' | 'existing';
  /** Why the template was not loaded on a first start, when it was not. */
  templateSkipped?: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /**
   * Where the initialised data folder's template is, for a first start on disk; absent: the
   * build's (dist/pglite-template); null: none (initdb), for a schema older than the template's.
   */
  templateDir?: string | null;
}

/**
 * PostgreSQL's defaults size a server for many sessions; PGlite serves one, and its whole
 * shared memory is resident from the start: Emscripten zero-fills the segment when it maps it,
 * so every megabyte of buffers is a megabyte of RSS (128 MB by default). Pages that miss these
 * buffers are read from the operating system's file cache, a system call away: 4 MB (512
 * pages) hold the hot part of a small installation, the one the embedded database is for, and
 * the WAL buffers follow PostgreSQL's own proportion (1/32 of shared_buffers).
 */
const SETTINGS: Record<string, string> = { shared_buffers: '4MB', wal_buffers: '128kB', temp_buffers: '2MB', max_connections: '10' };

type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
/** The one WebAssembly call made here (the project's TypeScript libraries leave WebAssembly out). */
declare const WebAssembly: { compileStreaming(source: Response): Promise<WasmModule> };

/**
 * PGlite's WebAssembly compiled from the file as it streams in. PGlite's own loader reads the
 * whole 9 MB file into one buffer that outlives the compilation and stays resident until the
 * next full garbage collection, often well after start; V8 keeps its own copy of the bytes anyway.
 */
function compilePgliteWasm(): Promise<WasmModule> {
  const file = path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.wasm');
  const body = Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;
  return WebAssembly.compileStreaming(new Response(body, { headers: { 'content-type': 'application/wasm' } }));
}

/** Copies the template's data folder to `dir`, which appears only once it is complete. */
function copyDataFolder(template: string, dir: string): void {
  const aside = `${dir}.${process.pid}.tmp`;
  rmSync(aside, { recursive: true, force: true });
  cpSync(template, aside, { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  renameSync(aside, dir);
}

/** Starts PGlite persisted under `dataDir` (or in memory when dataDir is null). */
export async function startEmbeddedPostgres(dataDir: string | null, embeddedOptions: EmbeddedOptions = {}): Promise<EmbeddedPostgres> {
  // V8's optimising tier would compile a second copy of PostgreSQL's hot code (about 40 MB
  // resident) for no gain measured on the control plane's queries; set before PGlite compiles.
  v8.setFlagsFromString('--liftoff-only');
  const options: PGliteOptions = {
    startParams: [...PGlite.defaultStartParams, ...Object.entries(SETTINGS).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
    pgliteWasmModule: await compilePgliteWasm(),
  };
  let initialisedFrom: EmbeddedPostgres['initialisedFrom'] = 'initdb';
  let templateSkipped: string | undefined;
  if (dataDir) {
    const dir = path.resolve(dataDir, 'pgdata');
    if (existsSync(path.join(dir, 'PG_VERSION'))) {
      initialisedFrom = 'existing';
    } else if (!existsSync(dir) || readdirSync(dir).length === 0) {
      const template = embeddedOptions.templateDir === null ? { found: false as const, reason: 'a schema older than the template\'s was asked for' } : await readTemplate(embeddedOptions.templateDir ?? defaultTemplateDir());
      if (template.found) {
        copyDataFolder(template.dataFolder, dir);
        initialisedFrom = 'template';
      } else {
        templateSkipped = template.reason;
      }
    }
    mkdirSync(dir, { recursive: true });
    options.dataDir = dir;
  }
  const db = await PGlite.create(options);
  // PGlite runs one session; the socket server multiplexes the few clients (the control
  // plane's single pooled connection, tests) onto it.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    stream: inProcessStream(server),
    initialisedFrom,
    ...(templateSkipped === undefined ? {} : { templateSkipped }),
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
