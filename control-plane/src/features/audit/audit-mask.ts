// What an audit row may not hold: secrets. The trail masks every before/after it writes, so
// a snapshot or a response body that carries a credential (a new API key, a channel's
// secret, a header, a connection string) never reaches the table. A mask shows that a value
// was there and changed, never what it was.

export const MASK = '***';

/** Keys whose values are credentials, whatever their shape (after lower-casing, `-` as `_`). */
const SECRET_KEY = /password|passwd|passphrase|secret|token|authorization|cookie|api_?key(?!_id)|credential|recovery|otpauth|qr_?code|_hash$|^key$|_key$|^codes$/;
/** Keys whose values are maps of names to credentials: HTTP headers. */
const HEADERS_KEY = /(^|_)headers$/;
/** Chat webhook URLs carry their credential in the path (Slack, Discord, Teams). */
const WEBHOOK_URL_KEY = /^webhook(_url)?$/;

/** An API key (op_<prefix>_<secret>), a JWT, a bearer credential, a URL naming a user or carrying a key, an otpauth:// or data: URL (a QR code). */
const SECRET_VALUE = [
  /^\s*(otpauth|data):/i,
  /\bop_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{8,}/,
  /\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/,
  /^\s*(bearer|basic)\s+\S+/i,
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i,
  /[?&#](token|access_token|api_key|apikey|key|secret|sig|signature|password|auth)=[^&\s]+/i,
];

/** Whether a field of that name holds a credential (a password, a secret, a token, a key). */
export const isSecretKey = (key: string) => SECRET_KEY.test(normalise(key));

const normalise = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toLowerCase();

/** A value fit for the audit log: secrets replaced by ***; booleans and nulls say only whether one is set. */
export function maskSecrets(value: unknown): unknown {
  if (typeof value === 'string') return SECRET_VALUE.some((pattern) => pattern.test(value)) ? MASK : value;
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value === null || typeof value !== 'object') return value;
  const masked: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) masked[key] = maskField(normalise(key), inner);
  return masked;
}

function maskField(key: string, value: unknown): unknown {
  if (value === null || value === undefined || typeof value === 'boolean') return value;
  if (SECRET_KEY.test(key) || WEBHOOK_URL_KEY.test(key)) return MASK;
  if (HEADERS_KEY.test(key)) return maskHeaders(value);
  return maskSecrets(value);
}

/** Header names stay (they say what changed); every value goes, whether a map or a list of {name, value}. */
function maskHeaders(headers: unknown): unknown {
  if (Array.isArray(headers)) return headers.map((h) => (h !== null && typeof h === 'object' ? { ...(maskSecrets(h) as object), ...('value' in h ? { value: MASK } : {}) } : MASK));
  if (headers !== null && typeof headers === 'object') return Object.fromEntries(Object.keys(headers).map((name) => [name, MASK]));
  return MASK;
}
