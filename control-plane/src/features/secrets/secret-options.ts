// The secrets inside a service's options: the values at SECRET_OPTION_KEYS (dotted paths into
// the options) and the password of a proxy URL. They are sealed at rest, masked in answers and
// opened only for agents. A value that is just a {{secrets.NAME}} reference holds no secret:
// it is stored and answered as written, so that a client sees which secret it names.
import { SECRET_OPTION_KEYS } from '../../../../shared/src/check-options.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { validationFailed, type ErrorDetail } from '../../errors.js';
import { findReferences, isExactReference } from '../org-secrets/secret-references.js';
import { proxyPassword } from '../../../../shared/src/proxy-password.js';

type Options = Record<string, unknown>;

export const MASK = '********';
const PATHS = SECRET_OPTION_KEYS.map((key) => key.split('.'));
/** Where sealed values may be: the secret options, and a proxy URL with a password. */
const SEALED_PATHS = [...PATHS, ['proxy']];

function read(options: Options, path: string[]): unknown {
  let value: unknown = options;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Options)[key];
  }
  return value;
}

/** A copy with `value` at `path` (undefined: without it); only the objects on the way are copied. */
function withPath(options: Options, [key, ...rest]: string[], value: unknown): Options {
  const copy = { ...options };
  if (rest.length > 0) copy[key!] = withPath(copy[key!] as Options, rest, value);
  else if (value === undefined) delete copy[key!];
  else copy[key!] = value;
  return copy;
}

/** A secret is either a value or one reference: text around a reference could be secret itself, yet could not be sealed apart. */
export function assertSealableSecrets(options: Options): void {
  const details: ErrorDetail[] = [];
  const check = (value: unknown, path: string) => {
    if (typeof value === 'string' && !isExactReference(value) && findReferences(value).length > 0) {
      details.push({ path, message: 'a secret option is either a value or one {{secrets.NAME}} reference, with nothing around it' });
    }
  };
  for (const [i, path] of PATHS.entries()) check(read(options, path), `options.${SECRET_OPTION_KEYS[i]}`);
  if (typeof options.proxy === 'string') check(proxyPassword(options.proxy)?.password, 'options.proxy');
  if (details.length > 0) throw validationFailed(`${details[0]!.path}: ${details[0]!.message}`, details);
}

/** The options to store: secrets sealed; a secret sent back as the mask keeps the stored one. */
export function sealOptions(options: Options, previous: Options, box: SecretBox): Options {
  let sealed = options;
  for (const path of PATHS) {
    const value = read(sealed, path);
    const stored = read(previous, path);
    if (value === MASK && stored !== undefined) sealed = withPath(sealed, path, stored);
    else if (typeof value === 'string' && !isExactReference(value)) sealed = withPath(sealed, path, box.seal(value));
  }
  if (typeof sealed.proxy === 'string') sealed = { ...sealed, proxy: sealProxy(sealed.proxy, previous.proxy, box) };
  return sealed;
}

function sealProxy(proxy: string, previous: unknown, box: SecretBox): string {
  const parts = proxyPassword(proxy);
  if (!parts || isExactReference(parts.password)) return proxy;
  if (parts.password !== MASK || !box.isSealed(previous)) return box.seal(proxy);
  const stored = openOrNothing(previous, box);
  if (stored === undefined) throw validationFailed('options.proxy: the stored proxy password cannot be read any more; send it again', [{ path: 'options.proxy', message: 'send the password again' }]);
  const storedPassword = proxyPassword(stored)?.password;
  return box.seal(storedPassword === undefined ? proxy : parts.with(storedPassword));
}

/** The options as answered: secrets masked (a proxy keeps everything but its password). */
export function maskSecrets(options: Options, box: SecretBox): Options {
  let masked = options;
  for (const path of PATHS) {
    const value = read(options, path);
    if (value !== undefined && !isExactReference(value)) masked = withPath(masked, path, MASK);
  }
  if (box.isSealed(options.proxy)) masked = { ...masked, proxy: maskedProxy(options.proxy, box) };
  return masked;
}

function maskedProxy(sealed: string, box: SecretBox): string {
  const open = openOrNothing(sealed, box);
  return open === undefined ? MASK : (proxyPassword(open)?.with(MASK) ?? open);
}

/**
 * Options as an agent needs them: secrets opened. A secret sealed under another server
 * secret cannot be opened; it is left out, so that check fails visibly on its own instead
 * of breaking every assignment.
 */
export function optionsForAgent(options: Options, box: SecretBox): Options {
  let open = options;
  for (const path of SEALED_PATHS) {
    const value = read(options, path);
    if (box.isSealed(value)) open = withPath(open, path, openOrNothing(value, box));
  }
  return open;
}

function openOrNothing(sealed: string, box: SecretBox): string | undefined {
  try {
    return box.open(sealed);
  } catch {
    return undefined;
  }
}
