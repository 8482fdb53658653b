// Configuration is parsed once, here, from the environment; nothing else reads process.env.
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { withoutBrackets } from '../../shared/src/endpoints.js';
import { KeyringError, parseKeyring, type DataKey } from './crypto/keyring.js';
import { PLANS, isPlan } from './features/organizations/plans.js';
import type { RateLimit } from './limits/rate-limiter.js';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { message: 'must be true or false' })
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const port = z.coerce.number({ message: 'must be a port number' }).int().min(0).max(65535);

/** "N/S": N events per S seconds, e.g. 1200/60; "off" for no limit. */
const rateLimit = z
  .string()
  .regex(/^(\d+\/\d+s?|off)$/, 'must be EVENTS/SECONDS (e.g. 1200/60) or off')
  .transform((v): RateLimit | undefined => {
    if (v === 'off') return undefined;
    const [points, seconds] = v.replace(/s$/, '').split('/').map(Number) as [number, number];
    return { points, windowSeconds: seconds };
  })
  .refine((l) => l === undefined || (l.points >= 1 && l.windowSeconds >= 1), 'must allow at least 1 event in at least 1 second');

/** Addresses or CIDR ranges (or loopback, linklocal, uniquelocal) of reverse proxies. */
const addressList = z
  .string()
  .transform((v) => v.split(',').map((a) => a.trim()).filter(Boolean))
  .refine((list) => {
    try {
      proxyaddr.compile(list);
      return true;
    } catch {
      return false;
    }
  }, 'must be a comma-separated list of IP addresses or CIDR ranges');

/** host:port, e.g. 127.0.0.1:9464 or [::1]:9464. */
const listenAddress = z
  .string()
  .regex(/^(\[[0-9a-fA-F:]+\]|[^\s:\[\]]+):\d{1,5}$/, 'must be HOST:PORT (e.g. 127.0.0.1:9464)')
  .transform((v) => {
    const colon = v.lastIndexOf(':');
    return { host: withoutBrackets(v.slice(0, colon)), port: Number(v.slice(colon + 1)) };
  })
  .refine((a) => a.port <= 65535, 'must have a port of at most 65535');

const positiveInt = (unit: string) => z.coerce.number({ message: `must be a whole number of ${unit}` }).int(`must be a whole number of ${unit}`).min(1);

const ConfigSchema = z.object({
  PORT: port.default(8080),
  GRPC_PORT: port.default(9090),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  WEB_DIR: z.string().min(1).optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  AGENT_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  DATA_ENCRYPTION_KEYS: z
    .string()
    .transform((v, ctx) => {
      try {
        return parseKeyring(v.split(',').map((e) => e.trim()).filter(Boolean));
      } catch (err) {
        if (!(err instanceof KeyringError)) throw err;
        ctx.addIssue({ code: 'custom', message: `must be ID:KEY[,ID:KEY...]: ${err.message}` });
        return z.NEVER;
      }
    })
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  EMBEDDED_AGENT: booleanFlag.default(true),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  DEFAULT_PLAN: z.string().refine(isPlan, `must be one of ${Object.keys(PLANS).join(', ')}`).default('free'),
  CHECK_RETENTION_DAYS: z.coerce.number({ message: 'must be a whole number of days' }).int('must be a whole number of days').min(1).max(3650).default(30),
  FLAP_CHANGES: positiveInt('status changes').max(1000).default(6),
  FLAP_WINDOW_MINUTES: positiveInt('minutes').max(1440).default(30),
  AGENT_OFFLINE_SECONDS: positiveInt('seconds').max(86_400).default(60),
  GRPC_TLS_CERT: z.string().min(1).optional(),
  GRPC_TLS_KEY: z.string().min(1).optional(),
  GRPC_TLS_CLIENT_CA: z.string().min(1).optional(),
  TRUSTED_PROXIES: addressList.prefault(''),
  API_RATE_LIMIT: rateLimit.prefault('1200/60'),
  REGISTRATION_RATE_LIMIT: rateLimit.prefault('10/10'),
  LOGIN_FAILURE_LIMIT: rateLimit.prefault('10/900'),
  LOGIN_ADDRESS_FAILURE_LIMIT: rateLimit.prefault('100/900'),
  SUBSCRIBE_RATE_LIMIT: rateLimit.prefault('10/3600'),
  SUBSCRIBE_EMAIL_RATE_LIMIT: rateLimit.prefault('3/3600'),
  PASSWORD_RESET_RATE_LIMIT: rateLimit.prefault('10/3600'),
  PASSWORD_RESET_EMAIL_RATE_LIMIT: rateLimit.prefault('3/3600'),
  HTTP_HEADERS_TIMEOUT_SECONDS: positiveInt('seconds').max(300).default(10),
  HTTP_REQUEST_TIMEOUT_SECONDS: positiveInt('seconds').max(3600).default(30),
  HTTP_MAX_CONNECTIONS_PER_CLIENT: positiveInt('connections').max(100_000).default(512),
  SMTP_HOST: z.string().min(1).optional(),
  SMTP_PORT: port.optional(),
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASSWORD: z.string().optional(),
  SMTP_FROM: z.string().min(3).optional(),
  SMTP_SECURE: booleanFlag.optional(),
  PAGER_EVENTS_URL: z.url({ message: 'must be a URL' }).default('https://events.pagerduty.com/v2/enqueue'),
  SMS_GATEWAY_URL: z.url({ message: 'must be a URL' }).optional(),
  SMS_GATEWAY_USER: z.string().min(1).optional(),
  SMS_GATEWAY_PASSWORD: z.string().optional(),
  SMS_FROM: z.string().min(1).optional(),
  SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE: booleanFlag.default(false),
  PUBLIC_URL: z
    .url({ message: 'must be an http(s) URL', protocol: /^https?$/ })
    .refine((v) => !v.endsWith('/'), 'must not end with /')
    .optional(),
  METRICS_ADDR: listenAddress.optional(),
  PUBLIC_GRPC_ADDRESS: z
    .string()
    .regex(/^(\[[0-9a-fA-F:]+\]|[^\s:\[\]]+):\d{1,5}$/, 'must be HOST:PORT (e.g. outpost.example.com:9090)')
    .refine((v) => {
      const p = Number(v.slice(v.lastIndexOf(':') + 1));
      return p >= 1 && p <= 65535;
    }, 'must have a port from 1 to 65535')
    .optional(),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PER_SERVICE: booleanFlag.default(true),
  METRICS_MAX_SERVICES: positiveInt('services').max(1_000_000).default(10_000),
});

export interface AlertingSettings {
  /** A service whose status changes more than this many times within the window is flapping. */
  readonly flapChanges: number;
  readonly flapWindowMs: number;
  /** An agent without a session this long is offline, and alerted on. */
  readonly agentOfflineMs: number;
}

export interface Config {
  readonly port: number;
  readonly grpcPort: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** The built dashboard; absent: dist/web of this package. */
  readonly webDir: string | undefined;
  readonly jwtSecret: string | undefined;
  readonly agentToken: string | undefined;
  /** The data keyring from the environment (first key seals); absent: DATA_DIR/data-keys. */
  readonly dataEncryptionKeys: DataKey[] | undefined;
  readonly logLevel: string;
  readonly embeddedAgent: boolean;
  readonly databasePoolSize: number;
  /** Days raw check results are kept; rollups (uptime, metrics) outlive them. */
  readonly checkRetentionDays: number;
  readonly alerting: AlertingSettings;
  /** The plan of an organization created by a registration. */
  readonly defaultPlan: string;
  readonly notifications: NotificationSettings;
  readonly http: HttpSettings;
  readonly limits: LimitSettings;
  /** Files of the agents' gRPC endpoint TLS; absent: plaintext (loopback and trusted networks only). */
  readonly grpcTls: { certFile: string; keyFile: string; clientCaFile?: string } | undefined;
  readonly metrics: MetricsSettings;
  /** Where agents reach the gRPC endpoint, for the install commands; absent: the request's host name and GRPC_PORT. */
  readonly publicGrpcAddress: string | undefined;
  /** PUBLIC_URL as set; absent when unset (passkeys then belong to the host each request came to). */
  readonly configuredPublicUrl: string | undefined;
}

export interface MetricsSettings {
  /** A listen address of its own for /metrics; absent: /metrics on the API port. */
  readonly address: { host: string; port: number } | undefined;
  /** Scrapers must present it as a bearer token; absent: /metrics is open. */
  readonly token: string | undefined;
  /** Export probe_success and probe_duration_seconds per service and location. */
  readonly perService: boolean;
  /** At most this many services in the per-service families (the first by id). */
  readonly maxServices: number;
}

export interface HttpSettings {
  /** Reverse proxies whose X-Forwarded-For is believed; nobody's by default. */
  readonly trustedProxies: readonly string[];
  readonly headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this. */
  readonly requestTimeoutMs: number;
  readonly maxConnectionsPerClient: number;
}

/** Undefined: no limit. */
export interface LimitSettings {
  /** Requests per credential (user or API key). */
  readonly api: RateLimit | undefined;
  /** Accounts created per client address. */
  readonly registrations: RateLimit | undefined;
  /** Failed logins per client address and account. */
  readonly loginFailures: RateLimit | undefined;
  /** Failed logins per client address, whatever the account (password spraying). */
  readonly loginAddressFailures: RateLimit | undefined;
  /** Status page subscriptions per client address. */
  readonly subscriptions: RateLimit | undefined;
  /** Status page subscriptions per e-mail address (each sends a confirmation mail). */
  readonly subscriptionsPerEmail: RateLimit | undefined;
  /** Password reset requests per client address. */
  readonly passwordResets: RateLimit | undefined;
  /** Password reset requests per e-mail address (each may send a mail). */
  readonly passwordResetsPerEmail: RateLimit | undefined;
}

export interface NotificationSettings {
  readonly smtp: { host: string; port: number; secure: boolean; user?: string; password?: string; from: string } | undefined;
  /** Names of the SMTP settings that are missing, for a clear error when e-mail is used. */
  readonly smtpMissing: string[];
  readonly pagerEventsUrl: string;
  readonly sms: { url: string; user?: string; password?: string; from?: string } | undefined;
  /** Where people open the dashboard: the links in chat messages point there. */
  readonly publicUrl: string;
  /** Status page subscribers' webhooks may reach private, loopback and link-local addresses (an intranet's page). */
  readonly subscriberWebhooksAllowPrivate: boolean;
}

export class ConfigError extends Error {}

/** Never echoed back in an error: they are secrets, or may hold one (a password in a URL). */
const SECRET_VARIABLES = new Set(['JWT_SECRET', 'AGENT_TOKEN', 'DATA_ENCRYPTION_KEYS', 'DATABASE_URL', 'SMTP_PASSWORD', 'SMS_GATEWAY_PASSWORD', 'METRICS_TOKEN']);

/** Parses the environment; throws ConfigError with one line naming the bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join('.') ?? 'configuration';
    const shown = SECRET_VARIABLES.has(name) ? 'value not shown' : `got ${JSON.stringify(env[name] ?? '')}`;
    throw new ConfigError(`invalid configuration: ${name} ${issue?.message ?? 'is invalid'} (${shown})`);
  }
  const c = parsed.data;
  if (c.HTTP_HEADERS_TIMEOUT_SECONDS > c.HTTP_REQUEST_TIMEOUT_SECONDS) {
    throw new ConfigError('invalid configuration: HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS');
  }
  if (Boolean(c.GRPC_TLS_CERT) !== Boolean(c.GRPC_TLS_KEY)) {
    throw new ConfigError(`invalid configuration: ${c.GRPC_TLS_CERT ? 'GRPC_TLS_KEY' : 'GRPC_TLS_CERT'} is required when the other is set`);
  }
  return Object.freeze({
    port: c.PORT,
    grpcPort: c.GRPC_PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL,
    dataDir: c.DATA_DIR,
    webDir: c.WEB_DIR,
    jwtSecret: c.JWT_SECRET,
    agentToken: c.AGENT_TOKEN,
    dataEncryptionKeys: c.DATA_ENCRYPTION_KEYS,
    logLevel: c.LOG_LEVEL,
    embeddedAgent: c.EMBEDDED_AGENT,
    databasePoolSize: c.DATABASE_POOL_SIZE,
    checkRetentionDays: c.CHECK_RETENTION_DAYS,
    alerting: { flapChanges: c.FLAP_CHANGES, flapWindowMs: c.FLAP_WINDOW_MINUTES * 60_000, agentOfflineMs: c.AGENT_OFFLINE_SECONDS * 1000 },
    defaultPlan: c.DEFAULT_PLAN,
    grpcTls: c.GRPC_TLS_CERT && c.GRPC_TLS_KEY ? { certFile: c.GRPC_TLS_CERT, keyFile: c.GRPC_TLS_KEY, clientCaFile: c.GRPC_TLS_CLIENT_CA } : undefined,
    publicGrpcAddress: c.PUBLIC_GRPC_ADDRESS,
    configuredPublicUrl: c.PUBLIC_URL,
    metrics: Object.freeze({ address: c.METRICS_ADDR, token: c.METRICS_TOKEN, perService: c.METRICS_PER_SERVICE, maxServices: c.METRICS_MAX_SERVICES }),
    http: Object.freeze({
      trustedProxies: Object.freeze(c.TRUSTED_PROXIES),
      headersTimeoutMs: c.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: c.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      maxConnectionsPerClient: c.HTTP_MAX_CONNECTIONS_PER_CLIENT,
    }),
    limits: Object.freeze({
      api: c.API_RATE_LIMIT,
      registrations: c.REGISTRATION_RATE_LIMIT,
      loginFailures: c.LOGIN_FAILURE_LIMIT,
      loginAddressFailures: c.LOGIN_ADDRESS_FAILURE_LIMIT,
      subscriptions: c.SUBSCRIBE_RATE_LIMIT,
      subscriptionsPerEmail: c.SUBSCRIBE_EMAIL_RATE_LIMIT,
      passwordResets: c.PASSWORD_RESET_RATE_LIMIT,
      passwordResetsPerEmail: c.PASSWORD_RESET_EMAIL_RATE_LIMIT,
    }),
    notifications: Object.freeze({
      smtp: c.SMTP_HOST
        ? { host: c.SMTP_HOST, port: c.SMTP_PORT ?? (c.SMTP_SECURE ? 465 : 587), secure: c.SMTP_SECURE ?? false, user: c.SMTP_USER, password: c.SMTP_PASSWORD, from: c.SMTP_FROM ?? `outpost@${c.SMTP_HOST}` }
        : undefined,
      smtpMissing: c.SMTP_HOST ? [] : ['SMTP_HOST'],
      pagerEventsUrl: c.PAGER_EVENTS_URL,
      sms: c.SMS_GATEWAY_URL ? { url: c.SMS_GATEWAY_URL, user: c.SMS_GATEWAY_USER, password: c.SMS_GATEWAY_PASSWORD, from: c.SMS_FROM } : undefined,
      publicUrl: c.PUBLIC_URL ?? localUrl(c.HOST, c.PORT),
      subscriberWebhooksAllowPrivate: c.SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE,
    }),
  });
}

/** The dashboard's address when PUBLIC_URL is not set: the listen address, a wildcard read as loopback. */
function localUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}
