// Checks of deploy/kubernetes: each object against the Kubernetes schemas (kubernetes-models),
// then what the schemas cannot see: selectors that match, ports and Secrets that exist, the
// probes on the control plane's health routes, and pods the "restricted" profile admits.
import { readFileSync } from 'node:fs';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { parseAllDocuments } from 'yaml';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The kinds deploy/kubernetes may hold; any other is refused rather than left unchecked. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

export function readYamlDocuments(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8'), { prettyErrors: true }).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS() as unknown;
  });
}

/** Throws naming the object and the schema's complaints. */
export function validateKubernetesObject(value: unknown): KubeObject {
  const object = value as Partial<KubeObject> | null;
  const id = `${object?.apiVersion}/${object?.kind}`;
  const Model = MODELS[id];
  if (!Model) throw new Error(`${id}: not a kind these manifests may use (${Object.keys(MODELS).join(', ')})`);
  if (!object?.metadata?.name) throw new Error(`${id}: metadata.name is missing`);
  try {
    new Model(object as never).validate();
  } catch (err) {
    throw new Error(`${id} ${object.metadata.name}: ${(err as Error).message}`);
  }
  return object as KubeObject;
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: { containers: IContainer[]; securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type?: string } } };
}
interface DeploymentShape extends KubeObject {
  spec: { replicas?: number; selector: { matchLabels?: Record<string, string> }; template: PodTemplate };
}
interface ServiceShape extends KubeObject {
  spec: { selector?: Record<string, string>; ports: { name?: string; port: number; targetPort?: string | number }[] };
}
interface PdbShape extends KubeObject {
  spec: { selector?: { matchLabels?: Record<string, string> }; minAvailable?: number | string; maxUnavailable?: number | string };
}
interface SecretShape extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

const envValue = (container: IContainer, name: string) => container.env?.find((e) => e.name === name)?.value;

/** The container port a probe or a Service's targetPort names (by name or number). */
const containerPort = (containers: IContainer[], port: string | number | undefined) =>
  containers.flatMap((c) => c.ports ?? []).find((p) => p.name === port || p.containerPort === port);

function podSecurityProblems(name: string, pod: PodTemplate): string[] {
  const problems: string[] = [];
  for (const c of pod.spec.containers) {
    const sc = c.securityContext ?? {};
    if ((sc.runAsNonRoot ?? pod.spec.securityContext?.runAsNonRoot) !== true) problems.push(`${name}/${c.name}: runAsNonRoot is not true`);
    if (sc.allowPrivilegeEscalation !== false) problems.push(`${name}/${c.name}: allowPrivilegeEscalation is not false`);
    if (!sc.capabilities?.drop?.includes('ALL')) problems.push(`${name}/${c.name}: capabilities do not drop ALL`);
    if ((sc.capabilities?.add ?? []).some((cap) => cap !== 'NET_BIND_SERVICE')) problems.push(`${name}/${c.name}: adds capabilities`);
    if ((sc.seccompProfile?.type ?? pod.spec.securityContext?.seccompProfile?.type) !== 'RuntimeDefault') problems.push(`${name}/${c.name}: no RuntimeDefault seccomp profile`);
  }
  return problems;
}

function probeProblems(name: string, c: IContainer, probe: IProbe | undefined, kind: string, path: string): string[] {
  if (probe?.httpGet?.path !== path) return [`${name}/${c.name}: ${kind} is not GET ${path}`];
  const port = containerPort([c], probe.httpGet.port);
  if (!port) return [`${name}/${c.name}: ${kind} port ${probe.httpGet.port} is not a port of the container`];
  if (String(port.containerPort) !== envValue(c, 'PORT')) return [`${name}/${c.name}: ${kind} probes port ${port.containerPort}, not PORT (${envValue(c, 'PORT')})`];
  return [];
}

/** The control plane's container: health routes probed, ports as its PORT and GRPC_PORT say. */
function controlPlaneProblems(name: string, c: IContainer, knownVariables: ReadonlySet<string>): string[] {
  const problems = [
    ...probeProblems(name, c, c.readinessProbe, 'readinessProbe', '/api/v1/ready'),
    ...probeProblems(name, c, c.livenessProbe, 'livenessProbe', '/api/v1/health'),
    ...(c.startupProbe ? probeProblems(name, c, c.startupProbe, 'startupProbe', '/api/v1/health') : []),
  ];
  if (String(containerPort([c], 'grpc')?.containerPort) !== envValue(c, 'GRPC_PORT')) problems.push(`${name}/${c.name}: the port named grpc is not GRPC_PORT`);
  for (const e of c.env ?? []) if (!knownVariables.has(e.name)) problems.push(`${name}/${c.name}: ${e.name} is not a control-plane setting`);
  return problems;
}

function secretProblems(where: string, secrets: SecretShape[], name: string | undefined, key?: string): string[] {
  const secret = secrets.find((s) => s.metadata.name === name);
  if (!secret) return [`${where}: refers to a Secret ${name} that no manifest defines`];
  if (key !== undefined && !(key in { ...secret.data, ...secret.stringData })) return [`${where}: Secret ${name} has no key ${key}`];
  return [];
}

/** Everything wrong across the objects of deploy/kubernetes; empty when they fit together. */
export function kubernetesProblems(objects: KubeObject[], controlPlaneVariables: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const deployments = objects.filter((o): o is DeploymentShape => o.kind === 'Deployment');
  const services = objects.filter((o): o is ServiceShape => o.kind === 'Service');
  const secrets = objects.filter((o): o is SecretShape => o.kind === 'Secret');
  const controlPlane = deployments.filter((d) => d.metadata.labels?.['app.kubernetes.io/component'] === 'control-plane');
  if (controlPlane.length !== 1) problems.push(`expected one control-plane Deployment, found ${controlPlane.length}`);

  for (const d of deployments) {
    const name = `Deployment ${d.metadata.name}`;
    const pod = d.spec.template;
    if (!matches(d.spec.selector.matchLabels, pod.metadata?.labels)) problems.push(`${name}: selector does not match the pod labels`);
    problems.push(...podSecurityProblems(name, pod));
    for (const c of pod.spec.containers) {
      if (controlPlane.includes(d)) problems.push(...controlPlaneProblems(name, c, controlPlaneVariables));
      for (const from of c.envFrom ?? []) if (from.secretRef) problems.push(...secretProblems(`${name}/${c.name}`, secrets, from.secretRef.name));
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) problems.push(...secretProblems(`${name}/${c.name} ${e.name}`, secrets, ref.name, ref.key));
      }
      const server = envValue(c, 'OUTPOST_SERVER');
      if (server !== undefined) {
        const [host, port] = server.split(':');
        if (!services.some((s) => s.metadata.name === host && s.spec.ports.some((p) => String(p.port) === port))) problems.push(`${name}/${c.name}: OUTPOST_SERVER ${server} is no Service port`);
      }
    }
  }
  for (const cp of controlPlane) {
    if ((cp.spec.replicas ?? 1) < 3) problems.push(`Deployment ${cp.metadata.name}: fewer than 3 replicas`);
    for (const s of secrets) for (const key of Object.keys({ ...s.data, ...s.stringData })) {
      if (!controlPlaneVariables.has(key)) problems.push(`Secret ${s.metadata.name}: ${key} is not a control-plane setting`);
    }
  }

  for (const s of services) {
    const targets = deployments.filter((d) => matches(s.spec.selector, d.spec.template.metadata?.labels));
    if (targets.length === 0) problems.push(`Service ${s.metadata.name}: selects no Deployment's pods`);
    for (const d of targets) for (const p of s.spec.ports) {
      if (!containerPort(d.spec.template.spec.containers, p.targetPort ?? p.port)) problems.push(`Service ${s.metadata.name}: targetPort ${p.targetPort ?? p.port} is not a port of Deployment ${d.metadata.name}`);
    }
  }
  for (const pdb of objects.filter((o): o is PdbShape => o.kind === 'PodDisruptionBudget')) {
    const targets = deployments.filter((d) => matches(pdb.spec.selector?.matchLabels, d.spec.template.metadata?.labels));
    if (targets.length !== 1) problems.push(`PodDisruptionBudget ${pdb.metadata.name}: selects ${targets.length} Deployments, not 1`);
    // A budget that allows no disruption at all blocks every node drain.
    for (const d of targets) if (typeof pdb.spec.minAvailable === 'number' && pdb.spec.minAvailable >= (d.spec.replicas ?? 1)) problems.push(`PodDisruptionBudget ${pdb.metadata.name}: minAvailable leaves no pod to disrupt`);
  }
  return problems;
}
