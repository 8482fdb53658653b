// The services use cases (API.md "Services"): validation across fields, organization
// access, secrets in options, and telling agents about every change.
import { randomUUID } from 'node:crypto';
import { CHECK_TYPES, endpointFormat, internalKind, type CheckType } from '../../../../shared/src/check-types.js';
import { parseCheckOptions } from '../../../../shared/src/check-options.js';
import { endpointProblem } from '../../../../shared/src/endpoints.js';
import { ldapFilterProblem } from './ldap-filter.js';
import type { Clock } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { AppError, notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { SecretResolver } from '../org-secrets/secret-resolver.js';
import { assertSealableSecrets, maskSecrets, sealOptions } from '../secrets/secret-options.js';
import type { ServiceRecord } from './service.entity.js';
import type { LocationStatus, ServiceOverviewRepository, ServicesSummary } from './service-overview.repository.js';
import type { CreateServiceInput, ListServicesQuery, ServicesSummaryQuery, UpdateServiceInput } from './services.schema.js';
import type { ServiceChanges, ServiceFilters, ServicePage, ServicesRepository } from './services.repository.js';
import { noDependencies, type DependenciesRepository, type ServiceDependencies } from './dependencies.repository.js';
import { assertDependenciesAllowed } from './dependency-graph.js';
import { createBulkServices } from './bulk-services.js';

export type ServiceView = ServiceRecord & ServiceDependencies;

/** One row of the dashboard's service list. */
export interface ServiceOverview {
  service: ServiceRecord;
  locationStatuses: LocationStatus[];
  /** Mean response time of each of the last TREND_HOURS hours, oldest first; null: no checks. */
  trend: (number | null)[];
}

const TREND_HOURS = 24;
const HOUR_MS = 3_600_000;

/** What agents must hear about; implemented by the assignment hub. */
export interface ServiceChangeListener {
  serviceUpserted(service: ServiceRecord): void;
  serviceRemoved(service: ServiceRecord): void;
  runNow(service: ServiceRecord): void;
  /** Many at once (bulk actions): one assignment build here, a few messages to the other replicas. */
  servicesUpserted(services: ServiceRecord[]): void;
  servicesRemoved(services: ServiceRecord[]): void;
  servicesRunNow(services: ServiceRecord[]): void;
}

export interface ServicesServiceDeps {
  services: ServicesRepository;
  dependencies: DependenciesRepository;
  overview: ServiceOverviewRepository;
  access: OrganizationAccess;
  secrets: SecretBox;
  /** Checks the {{secrets.NAME}} references of options against the organization's secrets. */
  secretReferences: SecretResolver;
  listener: ServiceChangeListener;
  clock: Clock;
}

// Changes to these reach the agents; a rename or new tags do not. A paused service is no
// agent's assignment (the hub drops it), so pausing and resuming reach them too.
const CHECK_FIELDS = ['endpoint', 'checkType', 'checkIntervalSeconds', 'timeoutSeconds', 'locations', 'options', 'paused'] as const;

export function createServicesService({ services, dependencies, overview, access, secrets, secretReferences, listener, clock }: ServicesServiceDeps) {
  const viewWith = (s: ServiceRecord, deps: ServiceDependencies): ServiceView => ({ ...s, options: maskSecrets(s.options, secrets), ...deps });
  /** The services as answered: secrets masked, dependencies read in one statement for them all. */
  const views = async (found: ServiceRecord[]): Promise<ServiceView[]> => {
    const deps = found.length === 0 ? new Map<string, ServiceDependencies>() : await dependencies.forServices(found[0]!.organizationId, found.map((s) => s.id));
    return found.map((s) => viewWith(s, deps.get(s.id) ?? noDependencies()));
  };
  const view = async (s: ServiceRecord): Promise<ServiceView> => (await views([s]))[0]!;

  /** Validated options as stored: references to existing secrets only, secrets sealed. */
  const storableOptions = async (organizationId: string, options: Record<string, unknown>, previous: Record<string, unknown> = {}) => {
    assertSealableSecrets(options);
    await secretReferences.assertDefined(organizationId, options);
    return sealOptions(options, previous, secrets);
  };

  /** The service and the actor's role for it; 404 when the actor may not see it. */
  async function findVisible(actor: Actor, serviceId: string) {
    const found = await services.findForUser(serviceId, actor.userId);
    const role = found && access.effectiveRole(actor, found.service.organizationId, found.role);
    if (!found || !role) throw notFound('service');
    return { service: found.service, dependencies: found.dependencies, role };
  }

  async function findWritable(actor: Actor, serviceId: string) {
    const { service, role } = await findVisible(actor, serviceId);
    access.assertCanWrite(role);
    return service;
  }

  return {
    async create(actor: Actor, input: CreateServiceInput): Promise<ServiceView> {
      const organizationId = await access.resolveWritable(actor, input.organization_id);
      validateCheck(input.check_type, input.endpoint);
      const options = await storableOptions(organizationId, validateOptions(input.check_type, input.options));
      const id = randomUUID();
      if (input.depends_on.length > 0) {
        // Nothing depends on a new service, so it closes no cycle and needs no lock.
        assertDependenciesAllowed(await dependencies.graph(organizationId, input.depends_on), id, input.name, input.depends_on);
      }
      const created = await services.insertWithinPlan({
        id,
        organizationId,
        name: input.name,
        description: input.description ?? null,
        environment: input.environment ?? null,
        endpoint: input.endpoint,
        checkType: input.check_type,
        checkIntervalSeconds: input.check_interval_seconds,
        timeoutSeconds: input.timeout_seconds,
        tags: input.tags,
        locations: input.locations,
        options,
        paused: input.paused,
      });
      await dependencies.addForNew(organizationId, id, input.depends_on);
      listener.serviceUpserted(created);
      // Without dependencies there is nothing to read back: creates run at hundreds a second.
      return input.depends_on.length === 0 ? viewWith(created, noDependencies()) : view(created);
    },

    /** A page of the services that match, and how many match in all. */
    async list(actor: Actor, query: ListServicesQuery): Promise<{ total: number; services: ServiceView[] }> {
      const organizationId = await access.resolveReadable(actor, query.org);
      const found = await services.list(organizationId, filtersOf(query), pageOf(query));
      return { total: found.total, services: await views(found.services) };
    },

    /** Counts by status and the values the list's filters take, over every service of the organization. */
    async summary(actor: Actor, query: ServicesSummaryQuery): Promise<ServicesSummary> {
      const summary = await overview.summary(await access.resolveReadable(actor, query.org));
      // Heartbeats and certificate watches are counted, as GET /services lists them, but their
      // internal types are no value of the check_type filter, which refuses them.
      return { ...summary, checkTypes: summary.checkTypes.filter((t) => (CHECK_TYPES as string[]).includes(t)) };
    },

    /** The list's page with each service's location statuses and hourly trend: four statements, whatever the page size. */
    async overview(actor: Actor, query: ListServicesQuery): Promise<{ total: number; services: ServiceOverview[] }> {
      const organizationId = await access.resolveReadable(actor, query.org);
      const { total, services: found } = await services.list(organizationId, filtersOf(query), pageOf(query));
      const ids = found.map((s) => s.id);
      const currentHour = Math.floor(clock.now().getTime() / HOUR_MS) * HOUR_MS;
      const [locations, trends] = await Promise.all([
        overview.locationStatuses(ids),
        overview.hourlyMeans(ids, new Date(currentHour - (TREND_HOURS - 1) * HOUR_MS), TREND_HOURS),
      ]);
      return {
        total,
        services: found.map((service) => ({
          service,
          locationStatuses: locations.get(service.id) ?? [],
          trend: trends.get(service.id) ?? new Array<number | null>(TREND_HOURS).fill(null),
        })),
      };
    },

    /** A service's stored options (secrets sealed), for a member or above: what stands behind the masks a form sends back. */
    async storedOptions(actor: Actor, serviceId: string): Promise<{ organizationId: string; options: Record<string, unknown> }> {
      const service = await findWritable(actor, serviceId);
      return { organizationId: service.organizationId, options: service.options };
    },

    async get(actor: Actor, serviceId: string): Promise<ServiceView> {
      const { service, dependencies: deps } = await findVisible(actor, serviceId);
      return viewWith(service, deps);
    },

    async update(actor: Actor, serviceId: string, input: UpdateServiceInput): Promise<ServiceView> {
      const current = await findWritable(actor, serviceId);
      const internal = internalKind(current.checkType);
      if (internal) throw validationFailed(`this service is ${internal.what}: change it through ${internal.managedThrough}`);
      if (input.organization_id !== undefined && input.organization_id !== current.organizationId) {
        throw validationFailed('organization_id cannot be changed', [{ path: 'organization_id', message: 'a service cannot move to another organization' }]);
      }
      const checkType = input.check_type ?? current.checkType;
      const endpoint = input.endpoint ?? current.endpoint;
      validateCheck(checkType, endpoint);
      const changes: ServiceChanges = {
        name: input.name,
        description: input.description,
        environment: input.environment,
        endpoint: input.endpoint,
        checkType: input.check_type,
        checkIntervalSeconds: input.check_interval_seconds,
        timeoutSeconds: input.timeout_seconds,
        tags: input.tags,
        locations: input.locations,
        paused: input.paused,
      };
      if (input.options !== undefined) {
        changes.options = await storableOptions(current.organizationId, validateOptions(checkType, input.options), current.options);
      } else if (input.check_type !== undefined) {
        validateOptions(checkType, current.options); // the kept options must suit the new type
      }
      const dependsOn = input.depends_on;
      if (dependsOn !== undefined) {
        // First, so that a refused list changes nothing.
        await dependencies.replace(current.organizationId, serviceId, dependsOn, (graph) => assertDependenciesAllowed(graph, serviceId, input.name ?? current.name, dependsOn));
      }
      const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as ServiceChanges;
      const checkChanged = CHECK_FIELDS.some(
        (field) => field in defined && JSON.stringify(defined[field]) !== JSON.stringify(current[field]),
      );
      const updated = await services.update(serviceId, defined, checkChanged);
      if (checkChanged) listener.serviceUpserted(updated);
      return view(updated);
    },

    async remove(actor: Actor, serviceId: string): Promise<void> {
      const current = await findWritable(actor, serviceId);
      await services.delete(serviceId);
      listener.serviceRemoved(current);
    },

    async checkNow(actor: Actor, serviceId: string): Promise<void> {
      const current = await findWritable(actor, serviceId);
      // No agent holds a paused service: an answer of "enqueued" would be untrue.
      if (current.paused) throw new AppError('CONFLICT', 'this service is paused: resume it to check it');
      listener.runNow(current);
    },

    /** One action on many services of one organization, in one transaction (bulk-services.ts). */
    bulk: createBulkServices({ services, access, listener }),

    /** For history endpoints: throws 404 unless the user may read the service. */
    async assertReadable(actor: Actor, serviceId: string): Promise<ServiceRecord> {
      return (await findVisible(actor, serviceId)).service;
    },
  };
}

export type ServicesService = ReturnType<typeof createServicesService>;

function filtersOf(query: ListServicesQuery): ServiceFilters {
  return {
    status: query.status,
    tag: query.tag,
    checkType: query.check_type,
    environment: query.environment,
    location: query.location,
    text: query.q,
  };
}

function pageOf(query: ListServicesQuery): ServicePage {
  return { sort: query.sort ?? 'created_at', limit: query.limit, offset: query.offset ?? 0 };
}

/** Refuses an endpoint of the wrong form for the check type (400 naming `endpoint`). */
export function validateCheck(checkType: CheckType, endpoint: string): void {
  const problem = endpointProblem(endpointFormat(checkType), endpoint);
  if (problem) {
    throw validationFailed(`invalid endpoint for check_type ${checkType}: ${problem}`, [{ path: 'endpoint', message: problem }]);
  }
}

/** The options as the check type's schema reads them; 400 naming the option otherwise. */
export function validateOptions(checkType: CheckType, raw: Record<string, unknown>): Record<string, unknown> {
  const parsed = parseCheckOptions(checkType, raw);
  if (parsed.ok) {
    const filter = checkType === 'LDAP' ? parsed.options.filter : undefined;
    const problem = typeof filter === 'string' ? ldapFilterProblem(filter) : undefined;
    if (problem) throw validationFailed(`invalid options for check_type LDAP: filter: ${problem}`, [{ path: 'options.filter', message: problem }]);
    return parsed.options;
  }
  const first = parsed.issues[0];
  throw validationFailed(
    `invalid options for check_type ${checkType}${first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}` : ''}`,
    parsed.issues.map((i) => ({ path: `options${i.path ? `.${i.path}` : ''}`, message: i.message })),
  );
}
