// Checks of deploy/compose.yaml against the images of deploy/container and deploy/haproxy/haproxy.cfg:
// the shape of the topology (PostgreSQL, two or more replicas sharing their secrets, HAProxy in
// front of exactly them, the agent on HAProxy's gRPC port), since images cannot be built here.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface ComposeService {
  image?: string;
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  networks?: Record<string, { ipv4_address?: string }> | string[];
}
export interface ComposeFile {
  services: Record<string, ComposeService>;
}

export interface HaproxySection {
  kind: string;
  name: string;
  lines: string[];
}

/** `frontend`, `backend` and the like with their lines, comments dropped. */
export function parseHaproxyConfig(text: string): HaproxySection[] {
  const sections: HaproxySection[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    if (/^\S/.test(raw)) {
      const [kind = '', name = ''] = line.split(/\s+/);
      sections.push({ kind, name, lines: [] });
    } else {
      sections.at(-1)?.lines.push(line);
    }
  }
  return sections;
}

/** Setting names a zod schema file reads: `NAME:` keys and `env.NAME` reads. */
export function settingNames(sourceFile: string): Set<string> {
  const text = readFileSync(sourceFile, 'utf8');
  return new Set([...text.matchAll(/^\s+([A-Z][A-Z0-9_]+):|\benv\.([A-Z][A-Z0-9_]+)/gm)].map((m) => (m[1] ?? m[2]) as string));
}

const SHARED_SECRETS = ['DATABASE_URL', 'JWT_SECRET', 'AGENT_TOKEN', 'DATA_ENCRYPTION_KEYS'];
/** Whether the service runs the image deploy/container/build.sh tags `outpost-<name>`. */
const runs = (s: ComposeService, name: 'control-plane' | 'agent') => s.image?.startsWith(`outpost-${name}:`) === true;

function haproxyProblems(sections: HaproxySection[], replicas: [string, ComposeService][]): string[] {
  const problems: string[] = [];
  const backends = sections.filter((s) => s.kind === 'backend');
  const portOf = (variable: string) => replicas[0]?.[1].environment?.[variable];
  // Each backend is either the HTTP or the gRPC side of every replica, checked for readiness.
  for (const b of backends) {
    const servers = b.lines.filter((l) => l.startsWith('server ')).map((l) => l.split(/\s+/)[2] ?? '');
    const ports = new Set(servers.map((s) => s.split(':')[1]));
    const hosts = servers.map((s) => s.split(':')[0]).sort();
    if (JSON.stringify(hosts) !== JSON.stringify(replicas.map(([name]) => name).sort())) problems.push(`haproxy backend ${b.name}: servers ${hosts.join(', ')} are not the control-plane services`);
    if (ports.size !== 1 || ![portOf('PORT'), portOf('GRPC_PORT')].includes([...ports][0])) problems.push(`haproxy backend ${b.name}: server ports are not PORT or GRPC_PORT`);
    if (!b.lines.includes('http-check send meth GET uri /api/v1/ready')) problems.push(`haproxy backend ${b.name}: not checked on /api/v1/ready`);
  }
  if (backends.length < 2) problems.push('haproxy: expected an HTTP and a gRPC backend');
  return problems;
}

/** Everything wrong with the compose file; empty when the topology holds together. */
export function composeProblems(compose: ComposeFile, deployDir: string, controlPlaneVariables: ReadonlySet<string>, agentVariables: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const services = Object.entries(compose.services);
  if (!compose.services.postgres?.image?.startsWith('postgres:16')) problems.push('postgres: not PostgreSQL 16');

  const replicas = services.filter(([, s]) => runs(s, 'control-plane'));
  if (replicas.length < 2) problems.push(`expected two control-plane replicas, found ${replicas.length}`);
  for (const [name, s] of replicas) {
    for (const key of Object.keys(s.environment ?? {})) if (!controlPlaneVariables.has(key)) problems.push(`${name}: ${key} is not a control-plane setting`);
    for (const key of SHARED_SECRETS) {
      if (!s.environment?.[key]) problems.push(`${name}: ${key} is not set`);
      if (s.environment?.[key] !== replicas[0]?.[1].environment?.[key]) problems.push(`${name}: ${key} differs from the other replicas`);
    }
    if (!s.healthcheck?.test.join(' ').includes('/api/v1/ready')) problems.push(`${name}: healthcheck is not /api/v1/ready`);
  }

  const haproxy = compose.services.haproxy;
  const cfgMount = haproxy?.volumes?.find((v) => v.includes('haproxy.cfg'));
  const cfgFile = cfgMount ? path.resolve(deployDir, cfgMount.split(':')[0] ?? '') : undefined;
  if (!cfgFile || !existsSync(cfgFile)) return [...problems, 'haproxy: no haproxy.cfg mounted from deploy/'];
  const sections = parseHaproxyConfig(readFileSync(cfgFile, 'utf8'));
  problems.push(...haproxyProblems(sections, replicas));

  const address = Array.isArray(haproxy?.networks) ? undefined : Object.values(haproxy?.networks ?? {})[0]?.ipv4_address;
  for (const [name, s] of replicas) if (s.environment?.TRUSTED_PROXIES !== address) problems.push(`${name}: TRUSTED_PROXIES is not HAProxy's address (${address})`);

  const grpcFrontend = sections.find((s) => s.kind === 'frontend' && s.lines.includes('mode tcp'));
  const grpcPort = grpcFrontend?.lines.find((l) => l.startsWith('bind '))?.split(':').pop();
  const agents = services.filter(([, s]) => runs(s, 'agent'));
  if (agents.length !== 1) problems.push(`expected one agent, found ${agents.length}`);
  for (const [name, s] of agents) {
    if (s.environment?.OUTPOST_SERVER !== `haproxy:${grpcPort}`) problems.push(`${name}: OUTPOST_SERVER is not HAProxy's gRPC port (haproxy:${grpcPort})`);
    if (!s.environment?.OUTPOST_TOKEN?.startsWith('${AGENT_TOKEN')) problems.push(`${name}: OUTPOST_TOKEN is not the replicas' AGENT_TOKEN`);
    for (const key of Object.keys(s.environment ?? {})) if (!agentVariables.has(key)) problems.push(`${name}: ${key} is not an agent setting`);
  }
  return problems;
}
