// Reads outpost.yaml: YAML syntax, then the file schema, then ${ENV} references. Every
// error names its line, and all of them are reported before anything is sent anywhere.
import { SECRET_CONFIG_KEYS } from '../../../shared/src/channel-secrets.js';
import { SECRET_OPTION_KEYS } from '../../../shared/src/check-options.js';
import { isMap, isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { CliError } from '../cli-error.js';
import { ENV_REFERENCE, OutpostFile, type StatusPageEntry } from './file-schema.js';

const MAX_SYNTAX_ERRORS = 3;

export type Path = (string | number)[];

export interface LoadedFile {
  file: OutpostFile;
  /** "outpost.yaml:12" for the node at this path, for errors found later (unknown names). */
  where(path: Path): string;
}

export class FileError extends CliError {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0]! : `${problems.length} problems:\n  ${problems.join('\n  ')}`);
    this.name = 'FileError';
  }
}

/** Secret fields: an unset variable there means "keep the secret the server has". */
const SECRET_PATHS = [
  new RegExp(`^services\\.\\d+\\.options\\.(${SECRET_OPTION_KEYS.map((k) => k.replaceAll('.', '\\.')).join('|')})$`),
  new RegExp(`^notification_channels\\.\\d+\\.config\\.(${SECRET_CONFIG_KEYS.join('|')})$`),
  /^secrets\.\d+\.value$/,
];

function isSecretPath(path: Path): boolean {
  const dotted = path.join('.');
  return SECRET_PATHS.some((p) => p.test(dotted));
}

export function loadFile(text: string, source: string, env: Record<string, string | undefined>): LoadedFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return `${source}:${line}:${col}`;
  };
  // One syntax error cascades into many; the first few say where it is.
  if (doc.errors.length > 0) {
    // The yaml package repeats the position in its message; the prefix already gives it.
    const message = (e: { message: string }) => e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new FileError(doc.errors.slice(0, MAX_SYNTAX_ERRORS).map((e) => `${at(e.pos[0])}: ${message(e)}`));
  }
  const where = (path: Path) => at(offsetOf(doc, path));

  const parsed = OutpostFile.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    const found: { offset: number; text: string }[] = [];
    for (const issue of parsed.error.issues) {
      const path = issue.path as Path;
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const offset = offsetOf(doc, [...path, key], true);
          found.push({ offset, text: `${at(offset)}: unknown key "${key}"${inObject(path)}` });
        }
      } else {
        const offset = offsetOf(doc, path);
        found.push({ offset, text: `${at(offset)}: ${fieldPrefix(path)}${issue.message}` });
      }
    }
    throw new FileError(found.sort((a, b) => a.offset - b.offset).map((f) => f.text));
  }
  const problems: string[] = [];
  const file = resolveEnv(parsed.data, [], env, (path, variable) => {
    if (!isSecretPath(path)) problems.push(`${where(path)}: environment variable ${variable} is not set`);
  }) as OutpostFile;
  file.status_pages.forEach((page, i) => {
    const password = readPassword(page, env);
    if (typeof password === 'string') (page as StatusPageEntry & { password?: string }).password = password;
    else if (password) problems.push(`${where(['status_pages', i, 'password_env'])}: ${password.problem}`);
  });
  if (problems.length > 0) throw new FileError(problems);
  return { file, where };
}

/**
 * A password page's password, from the variable password_env names; it goes on the entry as
 * `password`, which the file itself may not hold. Unset, the stored password is kept.
 */
function readPassword(page: StatusPageEntry, env: Record<string, string | undefined>): string | { problem: string } | undefined {
  const value = page.password_env === undefined ? undefined : env[page.password_env];
  if (value === undefined) return undefined;
  if (value.length < 8 || value.length > 200) return { problem: `environment variable ${page.password_env} must hold a password of 8 to 200 characters` };
  return value;
}

/** " in alert_rules.1", for a key of the object at `path`. */
function inObject(path: Path): string {
  return path.length === 0 ? ' at the top level' : ` in ${path.join('.')}`;
}

/** "alert_rules.1.severity: ", before the message about the value at `path`. */
function fieldPrefix(path: Path): string {
  return path.length === 0 ? '' : `${path.join('.')}: `;
}

/** Where the node at `path` (or its nearest existing parent) starts; `key` points at a map key. */
function offsetOf(doc: Document, path: Path, key = false): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const parentPath = path.slice(0, depth - 1);
    const last = path[depth - 1];
    if (key && depth === path.length && last !== undefined) {
      const parent = parentPath.length ? doc.getIn(parentPath, true) : doc.contents;
      if (isMap(parent)) {
        const pair = parent.items.find((item) => isNode(item.key) && (item.key as { value?: unknown }).value === last);
        if (pair && isNode(pair.key) && pair.key.range) return pair.key.range[0];
      }
      continue;
    }
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return node.range[0];
    if (depth === 0) break;
  }
  return 0;
}

/** Replaces ${NAME} in every string; `unset` hears of each variable the environment lacks. */
function resolveEnv(value: unknown, path: Path, env: Record<string, string | undefined>, unset: (path: Path, variable: string) => void): unknown {
  if (typeof value === 'string') {
    // A secret whose variable is unset stays a reference: the plan keeps the stored secret.
    if (isSecretPath(path) && ENV_REFERENCE.test(value) && env[value.slice(2, -1)] === undefined) return value;
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, variable: string) => {
      const found = env[variable];
      if (found === undefined) unset(path, variable);
      return found ?? whole;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => resolveEnv(item, [...path, i], env, unset));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveEnv(v, [...path, k], env, unset)]));
  }
  return value;
}

export const isUnresolvedSecret = (value: unknown): boolean => typeof value === 'string' && ENV_REFERENCE.test(value);
