// `outpost import gatus FILE` and `outpost import kuma FILE`: write the outpost.yaml an importer
// makes (standard output or --out), the report on standard error, and with --apply apply it as
// `outpost apply` does.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Document, parse } from 'yaml';
import type { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import { importGatus, type ImportedFile, type ImportResult } from '../importers/gatus.js';
import type { Io } from '../program.js';
import { apply } from './config-as-code.js';

export interface ImportFlags {
  out?: string;
  apply?: boolean;
}

type Env = Record<string, string | undefined>;

export async function importGatusCommand(source: string, flags: ImportFlags, env: Env, io: Io, client: () => ApiClient): Promise<number> {
  return writeImported(importGatus(readGatusConfig(source)), `outpost import gatus ${path.basename(source)}`, source, flags, env, io, client);
}

export async function importKumaCommand(source: string, flags: ImportFlags, env: Env, io: Io, client: () => ApiClient): Promise<number> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(source);
  } catch (err) {
    throw new CliError(`cannot read ${source}: ${(err as Error).message}`);
  }
  const { readKumaFile, NotKumaFileError } = await import('../importers/kuma-file.js');
  const { importKuma } = await import('../importers/kuma.js');
  let data;
  try {
    data = await readKumaFile(bytes);
  } catch (err) {
    if (err instanceof NotKumaFileError) throw new CliError(`cannot import ${source}: ${err.message}`);
    throw err;
  }
  io.err(`Reading ${source}: ${data.description}.`);
  return writeImported(importKuma(data), `outpost import kuma ${path.basename(source)}`, source, flags, env, io, client);
}

/** The report on standard error, then the file to standard output, to --out, or through apply. */
async function writeImported({ file, report }: ImportResult, made: string, source: string, flags: ImportFlags, env: Env, io: Io, client: () => ApiClient): Promise<number> {
  const text = toOutpostYaml(file, made);
  for (const line of report.format(source)) io.err(line);
  if (flags.apply) return applyImported(text, flags.out, env, io, client);
  if (flags.out) {
    writeFileSync(flags.out, text);
    io.err(`Wrote ${flags.out}: review it, then outpost apply -f ${flags.out}`);
  } else io.out(text.trimEnd());
  return 0;
}

/** Through `outpost apply` itself (plan, then apply), from --out or a temporary file. */
async function applyImported(text: string, out: string | undefined, env: Env, io: Io, client: () => ApiClient): Promise<number> {
  const dir = out ? undefined : mkdtempSync(path.join(os.tmpdir(), 'outpost-import-'));
  const file = out ?? path.join(dir!, 'outpost.yaml');
  try {
    writeFileSync(file, text, { mode: 0o600 });
    return await apply(client(), { file }, env, io.out);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** A file, or a folder of *.yaml files that Gatus merges (GATUS_CONFIG_PATH pointing at a folder). */
function readGatusConfig(source: string): unknown {
  let files: string[];
  try {
    files = statSync(source).isDirectory()
      ? readdirSync(source)
          .filter((f) => /\.ya?ml$/i.test(f))
          .sort()
          .map((f) => path.join(source, f))
      : [source];
  } catch (err) {
    throw new CliError(`cannot read ${source}: ${(err as Error).message}`);
  }
  return files.map(parseYaml).reduce(mergeConfigs, {});
}

function parseYaml(file: string): unknown {
  try {
    return parse(readFileSync(file, 'utf8')) ?? {};
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** As Gatus merges its files: lists are joined, maps merged key by key. */
function mergeConfigs(into: unknown, from: unknown): unknown {
  if (Array.isArray(into) && Array.isArray(from)) return [...into, ...from];
  if (isMap(into) && isMap(from)) {
    const merged: Record<string, unknown> = { ...into };
    for (const [key, value] of Object.entries(from)) merged[key] = key in merged ? mergeConfigs(merged[key], value) : value;
    return merged;
  }
  return from;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The file without its empty sections, headed by where it came from. */
function toOutpostYaml(file: ImportedFile, made: string): string {
  const sections = Object.fromEntries(Object.entries(file).filter(([, entries]) => Array.isArray(entries) && entries.length > 0));
  // No anchors and aliases: each entry reads on its own.
  const doc = new Document(sections, { aliasDuplicateObjects: false });
  doc.commentBefore = ` Made by ${made}: review it, set the variables it names, then outpost apply -f FILE.`;
  return doc.toString({ lineWidth: 0 });
}
