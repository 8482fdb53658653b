// The deployment files, tested for what can be tested without pulling or building images:
// Kubernetes objects against the Kubernetes schemas and against each other, the compose
// topology against HAProxy's configuration, HAProxy's own check, and the Dockerfiles' inputs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parse } from 'yaml';
import { peerBinary } from '../fixtures/peers/require-peer.js';
import { composeProblems, parseHaproxyConfig, settingNames, type ComposeFile } from './compose-checks.js';
import { kubernetesProblems, readYamlDocuments, validateKubernetesObject, type KubeObject } from './kubernetes-checks.js';
import { npmStartLaunch, systemdUnitLaunch } from '../support/start-command.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const deployDir = path.join(root, 'deploy');
const kubeDir = path.join(deployDir, 'kubernetes');
const haproxyCfg = path.join(deployDir, 'haproxy', 'haproxy.cfg');
const controlPlaneVariables = settingNames(path.join(root, 'control-plane', 'src', 'config.ts'));
const agentVariables = settingNames(path.join(root, 'agent', 'src', 'config.ts'));

const manifestFiles = () => readdirSync(kubeDir).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
const kubeObjects = () => manifestFiles().flatMap((f) => readYamlDocuments(path.join(kubeDir, f)).map(validateKubernetesObject));
const clone = <T>(value: T): T => structuredClone(value);

describe('deploy/kubernetes', () => {
  it('holds only objects that pass the Kubernetes schemas', () => {
    const objects = kubeObjects();
    const kinds = objects.map((o) => o.kind);
    expect(kinds).to.include.members(['Deployment', 'Service', 'PodDisruptionBudget', 'Secret']);
    expect(kinds.filter((k) => k === 'Deployment')).to.have.length(2);
  });

  it('refuses objects the schemas reject, and kinds it has no schema for', () => {
    const deployment = kubeObjects().find((o) => o.kind === 'Deployment') as KubeObject & { spec: Record<string, unknown> };
    const broken = clone(deployment);
    broken.spec.replicas = 'three';
    delete broken.spec.selector;
    expect(() => validateKubernetesObject(broken))
      .to.throw(/spec\/replicas must be integer/)
      .with.property('message')
      .that.matches(/spec must have required property selector/);
    expect(() => validateKubernetesObject({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' }, spec: { ports: [{ port: 'http' }] } })).to.throw(/port must be integer/);
    expect(() => validateKubernetesObject({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'x' } })).to.throw(/not a kind these manifests may use/);
  });

  it('fits together: probes on the health routes, ports, selectors, Secrets and restricted pods', () => {
    expect(kubernetesProblems(kubeObjects(), controlPlaneVariables)).to.deep.equal([]);
  });

  it('reports wrong probes, ports, selectors, Secret keys and privileges', () => {
    const objects = kubeObjects() as (KubeObject & { spec: any })[];
    const controlPlane = objects.find((o) => o.metadata.name === 'outpost-control-plane' && o.kind === 'Deployment')!;
    const container = controlPlane.spec.template.spec.containers[0];
    container.readinessProbe.httpGet.path = '/api/v1/health';
    container.livenessProbe.httpGet.port = 'grpc';
    container.env.push({ name: 'JWT_SECRETS', value: 'x' });
    container.securityContext.allowPrivilegeEscalation = true;
    objects.find((o) => o.metadata.name === 'outpost-grpc')!.spec.ports[0].targetPort = 'grcp';
    objects.find((o) => o.kind === 'PodDisruptionBudget')!.spec.minAvailable = 3;
    const agent = objects.find((o) => o.metadata.name === 'outpost-agent')!;
    agent.spec.selector.matchLabels['app.kubernetes.io/component'] = 'agents';
    agent.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'OUTPOST_TOKEN').valueFrom.secretKeyRef.key = 'TOKEN';
    expect(kubernetesProblems(objects, controlPlaneVariables)).to.have.members([
      'Deployment outpost-control-plane/control-plane: readinessProbe is not GET /api/v1/ready',
      'Deployment outpost-control-plane/control-plane: livenessProbe probes port 9090, not PORT (8080)',
      'Deployment outpost-control-plane/control-plane: JWT_SECRETS is not a control-plane setting',
      'Deployment outpost-control-plane/control-plane: allowPrivilegeEscalation is not false',
      'Service outpost-grpc: targetPort grcp is not a port of Deployment outpost-control-plane',
      'PodDisruptionBudget outpost-control-plane: minAvailable leaves no pod to disrupt',
      'Deployment outpost-agent: selector does not match the pod labels',
      'Deployment outpost-agent/agent OUTPOST_TOKEN: Secret outpost has no key TOKEN',
    ]);
  });

  it('applies every manifest but the Secret example through kustomization.yaml', () => {
    const kustomization = parse(readFileSync(path.join(kubeDir, 'kustomization.yaml'), 'utf8')) as { resources: string[]; images: { name: string }[] };
    expect([...kustomization.resources].sort()).to.deep.equal(manifestFiles().filter((f) => !f.includes('.example.')).sort());
    const images = kubeObjects().flatMap((o) => ((o.spec as any)?.template?.spec?.containers ?? []).map((c: { image: string }) => c.image.split(':')[0]));
    expect(kustomization.images.map((i) => i.name).sort()).to.deep.equal([...images].sort());
  });
});

describe('deploy/compose.yaml', () => {
  const compose = () => parse(readFileSync(path.join(deployDir, 'compose.yaml'), 'utf8'), { merge: true }) as ComposeFile;

  it('runs PostgreSQL, replicas sharing their secrets behind HAProxy, and an agent on its gRPC port', () => {
    expect(Object.keys(compose().services)).to.include.members(['postgres', 'control-plane-a', 'control-plane-b', 'haproxy', 'agent']);
    expect(composeProblems(compose(), deployDir, controlPlaneVariables, agentVariables)).to.deep.equal([]);
  });

  it('reports an agent that bypasses HAProxy and replicas that do not share a secret', () => {
    const broken = compose();
    broken.services.agent!.environment!.OUTPOST_SERVER = 'control-plane-a:9090';
    broken.services['control-plane-b']!.environment = { ...broken.services['control-plane-b']!.environment, JWT_SECRET: '${OTHER_SECRET}' };
    delete broken.services['control-plane-a']!.healthcheck;
    expect(composeProblems(broken, deployDir, controlPlaneVariables, agentVariables)).to.have.members([
      "control-plane-a: healthcheck is not /api/v1/ready",
      'control-plane-b: JWT_SECRET differs from the other replicas',
      "agent: OUTPOST_SERVER is not HAProxy's gRPC port (haproxy:9090)",
    ]);
  });
});

describe('deploy/haproxy/haproxy.cfg', () => {
  /** `haproxy -c`: exit code, and the warnings other than replicas' names not resolving here. */
  const check = (file: string) => {
    const run = spawnSync('/usr/sbin/haproxy', ['-c', '-f', file], { encoding: 'utf8' });
    const warnings = run.stderr.split('\n').filter((l) => /\[(WARNING|ALERT)\]/.test(l) && !/could not resolve address 'control-plane-[ab]'/.test(l));
    return { status: run.status, warnings };
  };

  it('passes HAProxy’s own check, the replicas’ names aside', function () {
    peerBinary('/usr/sbin/haproxy', 'haproxy', this);
    expect(check(haproxyCfg)).to.deep.equal({ status: 0, warnings: [] });
  });

  it('is failed by HAProxy’s check when broken', function () {
    peerBinary('/usr/sbin/haproxy', 'haproxy', this);
    const dir = mkdtempSync(path.join(tmpdir(), 'outpost-haproxy-'));
    try {
      const broken = path.join(dir, 'haproxy.cfg');
      writeFileSync(broken, readFileSync(haproxyCfg, 'utf8').replace('balance leastconn', 'balance fewest'));
      expect(check(broken).status).to.not.equal(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('speaks HTTP on one frontend and passes gRPC through as TCP with long timeouts on the other', () => {
    const sections = parseHaproxyConfig(readFileSync(haproxyCfg, 'utf8'));
    const frontends = sections.filter((s) => s.kind === 'frontend');
    expect(frontends.map((f) => f.lines.find((l) => l.startsWith('mode')))).to.have.members(['mode http', 'mode tcp']);
    const httpBackend = sections.find((s) => s.name === 'control_plane_http');
    expect(httpBackend?.lines).to.include('timeout tunnel 1h');
  });
});

describe('deploy/agent-package.mjs', () => {
  const agentPackage = (entry: string) => spawnSync(process.execPath, [path.join(deployDir, 'agent-package.mjs'), entry], { cwd: root, encoding: 'utf8' });

  it('gives the agent image only the packages the agent imports', () => {
    const run = agentPackage('agent/src/cli.ts');
    expect(run.stderr).to.equal('');
    const pkg = JSON.parse(run.stdout) as { name: string; dependencies: Record<string, string> };
    expect(pkg.name).to.equal('outpost');
    expect(pkg.dependencies).to.include.keys('@bufbuild/protobuf', 'pino', 'zod', 'net-ping', 'commander');
    // grpc-js is the control plane's: the agent speaks gRPC over its own HTTP/2 client.
    expect(pkg.dependencies).to.not.have.any.keys('koa', 'argon2', '@mikro-orm/core', 'pg-copy-streams', '@electric-sql/pglite', '@grpc/grpc-js');
  });

  it('refuses to package an entry that reaches outside agent/ and shared/', () => {
    const run = agentPackage('control-plane/src/main.ts');
    expect(run.status).to.equal(1);
    expect(run.stderr).to.match(/reaches control-plane\/src\/main\.ts, outside agent\/ and shared\//);
  });
});

describe('deploy/container', () => {
  it('runs the control plane as non-root on the ports it exposes, health-checked on /api/v1/ready', () => {
    const containerfile = readFileSync(path.join(deployDir, 'container', 'control-plane.Containerfile'), 'utf8');
    const env = Object.fromEntries([...containerfile.matchAll(/\b(PORT|GRPC_PORT)=(\d+)/g)].map((m) => [m[1], m[2]]));
    expect(containerfile).to.match(new RegExp(`^EXPOSE ${env.PORT} ${env.GRPC_PORT}$`, 'm'));
    expect(containerfile).to.match(/^USER 10001:10001$/m);
    expect(containerfile).to.match(/^HEALTHCHECK .*\n.*\/api\/v1\/ready/m);
    expect(containerfile).to.match(/^CMD \["node", "--max-semi-space-size=4", "dist\/control-plane\/src\/main\.js"\]$/m);
  });
});

describe('deploy/systemd', () => {
  it('starts the control plane with the glibc tunables of `npm start`, and a young generation of its own', () => {
    const started = npmStartLaunch();
    const unit = systemdUnitLaunch();
    expect(started.env.GLIBC_TUNABLES).to.match(/glibc\.malloc\.arena_max=2/);
    expect(unit.env).to.deep.equal(started.env);
    expect(started.nodeOptions).to.deep.equal(['--max-semi-space-size=1']);
    expect(unit.nodeOptions).to.deep.equal(['--max-semi-space-size=4']);
  });
});
