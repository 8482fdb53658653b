// The connection strings of Uptime Kuma's database monitors (postgres://, mysql://, mongodb://,
// redis://) as what Outpost's checks take apart: host:port, user, password, database. The
// password is returned to be made a ${VARIABLE}, never written.

export interface Connection {
  scheme: string;
  host: string;
  port: number;
  username?: string;
  password?: string;
  database?: string;
  /** Query parameters (sslmode, authSource...), which Outpost's checks do not read. */
  parameters: string[];
  /** Hosts after the first (a MongoDB replica set). */
  otherHosts: string[];
}

const DEFAULT_PORTS: Record<string, number> = { postgres: 5432, postgresql: 5432, mysql: 3306, mariadb: 3306, mongodb: 27017, redis: 6379, rediss: 6379 };
/** scheme://[user[:password]@]hosts[/database][?parameters], the password kept raw (it may hold @ or :). */
const SHAPE = /^([a-z][a-z0-9+]*):\/\/(?:([^:@/]*)(?::(.*))?@)?([^/?@]+)(?:\/([^?]*))?(?:\?(.*))?$/i;

export function parseConnection(text: string): Connection | undefined {
  const parts = SHAPE.exec(text.trim());
  if (!parts) return undefined;
  const [, rawScheme, user, password, hosts, database, query] = parts;
  const scheme = rawScheme!.toLowerCase();
  const [first, ...otherHosts] = hosts!.split(',');
  const hostPort = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(first!);
  if (!hostPort) return undefined;
  const port = hostPort[2] ? Number(hostPort[2]) : DEFAULT_PORTS[scheme];
  if (port === undefined) return undefined;
  return {
    scheme,
    host: hostPort[1]!,
    port,
    ...(user ? { username: decode(user) } : {}),
    ...(password ? { password: decode(password) } : {}),
    ...(database ? { database: decode(database) } : {}),
    parameters: query ? query.split('&').map((p) => p.split('=')[0]!) : [],
    otherHosts,
  };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
