// SSL certificate watches (API.md "Other resource groups"): the agent of the watch's
// location fetches the certificate of hostname:port daily and on demand. Each watch owns a
// service of the internal type TLS_CERTIFICATE, so results, status, rules, alerts and
// channels work as for any service.
import { randomUUID } from 'node:crypto';
import type { CheckType } from '../../../../shared/src/check-types.js';
import { daysRemaining } from '../../../../shared/src/days-remaining.js';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { ServiceRecord } from '../services/service.entity.js';
import type { ServicesRepository } from '../services/services.repository.js';
import type { ServiceChangeListener } from '../services/services.service.js';
import type { CreateSslCertificateInput, UpdateSslCertificateInput } from './ssl-certificates.schema.js';
import type { SslCertificate, SslCertificateSettings, SslCertificatesRepository } from './ssl-certificates.repository.js';

export const SSL_CERTIFICATE_CHECK_TYPE: CheckType = 'TLS_CERTIFICATE';
const CHECK_INTERVAL_SECONDS = 86_400;
const TIMEOUT_SECONDS = 15;

export interface SslCertificateView extends SslCertificate {
  /** From valid_to at read time, so it counts down between the daily checks. */
  daysRemaining: number | null;
}

export function createSslCertificatesService(deps: {
  certificates: SslCertificatesRepository;
  services: ServicesRepository;
  access: OrganizationAccess;
  listener: ServiceChangeListener;
  clock: Clock;
}) {
  const { certificates, services, access, listener, clock } = deps;

  const view = (c: SslCertificate): SslCertificateView => ({ ...c, daysRemaining: c.latest?.validTo ? daysRemaining(c.latest.validTo, clock.now()) : null });

  const findIn = async (organizationId: string, id: string): Promise<SslCertificate> => {
    const found = await certificates.find(organizationId, id);
    if (!found) throw notFound('ssl certificate');
    return found;
  };

  /** The owned service; gone only if deleted in between, which reads as the watch being gone. */
  const serviceOf = async (c: SslCertificate): Promise<ServiceRecord> => {
    const service = await services.findById(c.serviceId);
    if (!service) throw notFound('ssl certificate');
    return service;
  };

  return {
    async list(actor: Actor): Promise<SslCertificateView[]> {
      return (await certificates.list(await access.resolveReadable(actor))).map(view);
    },
    async get(actor: Actor, id: string): Promise<SslCertificateView> {
      return view(await findIn(await access.resolveReadable(actor), id));
    },
    async create(actor: Actor, input: CreateSslCertificateInput): Promise<SslCertificateView> {
      const organizationId = await access.resolveWritable(actor);
      const settings = settingsOf(input);
      // Counts toward the plan's service cap, as heartbeats do: it is a checked service.
      const service = await services.insertWithinPlan({
        id: randomUUID(), organizationId, name: input.name ?? endpointOf(settings), description: null, environment: null,
        checkType: SSL_CERTIFICATE_CHECK_TYPE, checkIntervalSeconds: CHECK_INTERVAL_SECONDS, timeoutSeconds: TIMEOUT_SECONDS, tags: ['ssl-certificate'], ...checkOf(settings),
      });
      const id = randomUUID();
      try {
        await certificates.insert({ id, organizationId, serviceId: service.id, ...settings });
      } catch (err) {
        await services.delete(service.id);
        throw err;
      }
      listener.serviceUpserted(service);
      return view(await findIn(organizationId, id));
    },
    async update(actor: Actor, id: string, input: UpdateSslCertificateInput): Promise<SslCertificateView> {
      const organizationId = await access.resolveWritable(actor);
      const current = await findIn(organizationId, id);
      const settings: SslCertificateSettings = {
        hostname: input.hostname ?? current.hostname,
        port: input.port ?? current.port,
        warnDays: input.warn_days ?? current.warnDays,
        location: input.location ?? current.location,
        caCertificate: input.ca_certificate === undefined ? current.caCertificate : input.ca_certificate,
      };
      // A name left at its default (the endpoint) follows the host it names.
      const name = input.name ?? (current.name === endpointOf(current) ? endpointOf(settings) : current.name);
      const check = checkOf(settings);
      const previous = await serviceOf(current);
      const checkChanged = (['endpoint', 'locations', 'options'] as const).some((f) => JSON.stringify(check[f]) !== JSON.stringify(previous[f]));
      const updated = await services.update(current.serviceId, { name, ...check }, checkChanged);
      await certificates.update(id, settings);
      if (checkChanged) listener.serviceUpserted(updated);
      return view(await findIn(organizationId, id));
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const service = await serviceOf(await findIn(await access.resolveWritable(actor), id));
      await services.delete(service.id); // the watch goes with it (on delete cascade)
      listener.serviceRemoved(service);
    },
    /** An on-demand check; the result arrives like a scheduled one. */
    async checkNow(actor: Actor, id: string): Promise<void> {
      listener.runNow(await serviceOf(await findIn(await access.resolveWritable(actor), id)));
    },
  };
}

export type SslCertificatesService = ReturnType<typeof createSslCertificatesService>;

function settingsOf(input: CreateSslCertificateInput): SslCertificateSettings {
  return { hostname: input.hostname, port: input.port, warnDays: input.warn_days, location: input.location, caCertificate: input.ca_certificate };
}

function endpointOf(s: Pick<SslCertificateSettings, 'hostname' | 'port'>): string {
  return `${s.hostname.includes(':') ? `[${s.hostname}]` : s.hostname}:${s.port}`;
}

/** What the owned service's agent needs to run the check. */
function checkOf(s: SslCertificateSettings): Pick<ServiceRecord, 'endpoint' | 'locations' | 'options'> {
  return {
    endpoint: endpointOf(s),
    locations: [s.location],
    options: { warn_days: s.warnDays, ...(s.caCertificate ? { ca_certificate: s.caCertificate } : {}) },
  };
}
