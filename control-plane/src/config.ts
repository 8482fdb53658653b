// Configuration is parsed once, here, from the environment; nothing else reads process.env.
import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { message: 'must be true or false' })
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const port = z.coerce.number({ message: 'must be a port number' }).int().min(0).max(65535);

const ConfigSchema = z.object({
  PORT: port.default(8080),
  GRPC_PORT: port.default(9090),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  AGENT_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  EMBEDDED_AGENT: booleanFlag.default(true),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  CHECK_RETENTION_DAYS: z.coerce.number({ message: 'must be a whole number of days' }).int('must be a whole number of days').min(1).max(3650).default(30),
  GRPC_TLS_CERT: z.string().min(1).optional(),
  GRPC_TLS_KEY: z.string().min(1).optional(),
  GRPC_TLS_CLIENT_CA: z.string().min(1).optional(),
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
});

export interface Config {
  readonly port: number;
  readonly grpcPort: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly jwtSecret: string | undefined;
  readonly agentToken: string | undefined;
  readonly logLevel: string;
  readonly embeddedAgent: boolean;
  readonly databasePoolSize: number;
  /** Days raw check results are kept; rollups (uptime, metrics) outlive them. */
  readonly checkRetentionDays: number;
  readonly notifications: NotificationSettings;
  /** Files of the agents' gRPC endpoint TLS; absent: plaintext (loopback and trusted networks only). */
  readonly grpcTls: { certFile: string; keyFile: string; clientCaFile?: string } | undefined;
}

export interface NotificationSettings {
  readonly smtp: { host: string; port: number; secure: boolean; user?: string; password?: string; from: string } | undefined;
  /** Names of the SMTP settings that are missing, for a clear error when e-mail is used. */
  readonly smtpMissing: string[];
  readonly pagerEventsUrl: string;
  readonly sms: { url: string; user?: string; password?: string; from?: string } | undefined;
}

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError with one line naming the bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join('.') ?? 'configuration';
    throw new ConfigError(`invalid configuration: ${name} ${issue?.message ?? 'is invalid'} (got ${JSON.stringify(env[name] ?? '')})`);
  }
  const c = parsed.data;
  if (Boolean(c.GRPC_TLS_CERT) !== Boolean(c.GRPC_TLS_KEY)) {
    throw new ConfigError(`invalid configuration: ${c.GRPC_TLS_CERT ? 'GRPC_TLS_KEY' : 'GRPC_TLS_CERT'} is required when the other is set`);
  }
  return Object.freeze({
    port: c.PORT,
    grpcPort: c.GRPC_PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL,
    dataDir: c.DATA_DIR,
    jwtSecret: c.JWT_SECRET,
    agentToken: c.AGENT_TOKEN,
    logLevel: c.LOG_LEVEL,
    embeddedAgent: c.EMBEDDED_AGENT,
    databasePoolSize: c.DATABASE_POOL_SIZE,
    checkRetentionDays: c.CHECK_RETENTION_DAYS,
    grpcTls: c.GRPC_TLS_CERT && c.GRPC_TLS_KEY ? { certFile: c.GRPC_TLS_CERT, keyFile: c.GRPC_TLS_KEY, clientCaFile: c.GRPC_TLS_CLIENT_CA } : undefined,
    notifications: Object.freeze({
      smtp: c.SMTP_HOST
        ? { host: c.SMTP_HOST, port: c.SMTP_PORT ?? (c.SMTP_SECURE ? 465 : 587), secure: c.SMTP_SECURE ?? false, user: c.SMTP_USER, password: c.SMTP_PASSWORD, from: c.SMTP_FROM ?? `outpost@${c.SMTP_HOST}` }
        : undefined,
      smtpMissing: c.SMTP_HOST ? [] : ['SMTP_HOST'],
      pagerEventsUrl: c.PAGER_EVENTS_URL,
      sms: c.SMS_GATEWAY_URL ? { url: c.SMS_GATEWAY_URL, user: c.SMS_GATEWAY_USER, password: c.SMS_GATEWAY_PASSWORD, from: c.SMS_FROM } : undefined,
    }),
  });
}
