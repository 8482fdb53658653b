// Incidents written on a status page (members write, viewers read). Every change that people
// should hear of (an incident opened, updated, resolved) is told to the page's subscribers
// through their outbox, in the transaction that makes the change.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import { AppError, notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { References } from '../organizations/references.js';
import type { StatusPagesRepository } from '../status-pages/status-pages.repository.js';
import type { SubscriberEvent, SubscriberNotifier } from '../subscribers/subscriber-notice.js';
import type { Affected, Incident, IncidentImpact } from './incident.js';
import type { IncidentsRepository } from './incidents.repository.js';
import type { AddUpdateInput, CreateIncidentInput, EditUpdateInput, IncidentListQuery, UpdateIncidentInput } from './incidents.schema.js';

export interface IncidentsDeps {
  incidents: IncidentsRepository;
  pages: StatusPagesRepository;
  access: OrganizationAccess;
  references: References;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  subscribers: SubscriberNotifier;
  clock: Clock;
}

export function createIncidentsService({ incidents, pages, access, references, transaction, subscribers, clock }: IncidentsDeps) {
  const pageIn = async (organizationId: string, pageId: string) => {
    const page = await pages.find(organizationId, pageId);
    if (!page) throw notFound('status page');
    return page;
  };
  const incidentOf = async (pageId: string, id: string, tx?: Tx) => {
    const found = await incidents.find(pageId, id, tx);
    if (!found) throw notFound('incident');
    return found;
  };
  const affectedFrom = async (organizationId: string, list: { service_id: string; impact?: IncidentImpact }[], impact: IncidentImpact): Promise<Affected[]> => {
    if (!(await references.servicesExist(organizationId, list.map((a) => a.service_id)))) throw notFound('service');
    return list.map((a) => ({ serviceId: a.service_id, impact: a.impact ?? impact }));
  };

  /** Tells the page's subscribers, inside the transaction, what the incident's timeline says now. */
  async function tell(tx: Tx, event: SubscriberEvent, incident: Incident, message: string): Promise<void> {
    await subscribers.enqueue(tx, [
      {
        event,
        statusPageId: incident.statusPageId,
        serviceIds: incident.affected.map((a) => a.serviceId),
        title: incident.title,
        message,
        status: incident.status,
        subjectId: incident.id,
        startsAt: incident.startsAt,
        endsAt: incident.resolvedAt,
      },
    ]);
  }

  /** Runs a change and what it must tell, then wakes the subscribers' outbox. */
  async function change<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const result = await transaction(work);
    subscribers.wake();
    return result;
  }

  return {
    async list(actor: Actor, pageId: string, query: IncidentListQuery): Promise<Incident[]> {
      const page = await pageIn(await access.resolveReadable(actor), pageId);
      return incidents.list({ statusPageId: page.id, status: query.status, limit: query.limit, before: query.before ? new Date(query.before) : undefined });
    },
    async get(actor: Actor, pageId: string, id: string): Promise<Incident> {
      const page = await pageIn(await access.resolveReadable(actor), pageId);
      return incidentOf(page.id, id);
    },
    async create(actor: Actor, pageId: string, input: CreateIncidentInput): Promise<Incident> {
      const organizationId = await access.resolveWritable(actor);
      const page = await pageIn(organizationId, pageId);
      const affected = await affectedFrom(organizationId, input.affected, input.impact);
      if (input.alert_id && !(await references.alertExists(organizationId, input.alert_id))) throw notFound('alert');
      const now = clock.now();
      const startsAt = input.starts_at ? new Date(input.starts_at) : now;
      if (startsAt > now) throw new AppError('VALIDATION_FAILED', 'starts_at must not be in the future: announce planned work as a maintenance window', { details: [{ path: 'starts_at', message: 'must not be in the future' }] });
      const id = randomUUID();
      return change(async (tx) => {
        await incidents.insert(tx, {
          id, organizationId, statusPageId: page.id, title: input.title, impact: input.impact, alertId: input.alert_id ?? null, startsAt,
          firstUpdate: { id: randomUUID(), status: input.status, message: input.message, affected },
        });
        const created = await incidentOf(page.id, id, tx);
        await tell(tx, created.status === 'resolved' ? 'incident_resolved' : 'incident_opened', created, input.message);
        return created;
      });
    },
    async update(actor: Actor, pageId: string, id: string, input: UpdateIncidentInput): Promise<Incident> {
      const organizationId = await access.resolveWritable(actor);
      const page = await pageIn(organizationId, pageId);
      const current = await incidentOf(page.id, id);
      const startsAt = input.starts_at ? new Date(input.starts_at) : current.startsAt;
      if (startsAt > clock.now()) throw new AppError('VALIDATION_FAILED', 'starts_at must not be in the future', { details: [{ path: 'starts_at', message: 'must not be in the future' }] });
      return transaction(async (tx) => {
        await incidents.updateFields(tx, id, { title: input.title ?? current.title, impact: input.impact ?? current.impact, startsAt });
        return incidentOf(page.id, id, tx);
      });
    },
    async remove(actor: Actor, pageId: string, id: string): Promise<void> {
      const page = await pageIn(await access.resolveWritable(actor), pageId);
      await incidentOf(page.id, id);
      await incidents.delete(id);
    },
    async addUpdate(actor: Actor, pageId: string, id: string, input: AddUpdateInput): Promise<Incident> {
      const organizationId = await access.resolveWritable(actor);
      const page = await pageIn(organizationId, pageId);
      const current = await incidentOf(page.id, id);
      const affected = input.affected ? await affectedFrom(organizationId, input.affected, current.impact) : null;
      return change(async (tx) => {
        await incidents.addUpdate(tx, id, { id: randomUUID(), status: input.status, message: input.message, affected });
        const updated = await incidentOf(page.id, id, tx);
        const event: SubscriberEvent = updated.status === 'resolved' && current.status !== 'resolved' ? 'incident_resolved' : updated.status !== 'resolved' && current.status === 'resolved' ? 'incident_opened' : 'incident_updated';
        await tell(tx, event, updated, input.message);
        return updated;
      });
    },
    /** Corrects an update's words or status; subscribers are not told again. */
    async editUpdate(actor: Actor, pageId: string, id: string, updateId: string, input: EditUpdateInput): Promise<Incident> {
      const page = await pageIn(await access.resolveWritable(actor), pageId);
      const current = await incidentOf(page.id, id);
      const update = current.updates.find((u) => u.id === updateId);
      if (!update) throw notFound('incident update');
      return transaction(async (tx) => {
        await incidents.editUpdate(tx, id, updateId, { status: input.status ?? update.status, message: input.message ?? update.message });
        return incidentOf(page.id, id, tx);
      });
    },
    async deleteUpdate(actor: Actor, pageId: string, id: string, updateId: string): Promise<Incident> {
      const page = await pageIn(await access.resolveWritable(actor), pageId);
      const current = await incidentOf(page.id, id);
      if (!current.updates.some((u) => u.id === updateId)) throw notFound('incident update');
      if (current.updates.length === 1) throw new AppError('CONFLICT', 'an incident keeps at least one update: delete the incident instead');
      return transaction(async (tx) => {
        await incidents.deleteUpdate(tx, id, updateId);
        return incidentOf(page.id, id, tx);
      });
    },
  };
}

export type IncidentsService = ReturnType<typeof createIncidentsService>;
