// Silences through the API: members make, change and expire them, viewers read them. Each
// change is applied to the organization's open alerts at once (silence-applier.ts); starts and
// ends in the future are applied when due (silence-boundaries.ts).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import { notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import { nextBoundary, stateAt, type Silence } from './silence.js';
import type { SilenceApplier } from './silence-applier.js';
import type { CreateSilenceInput, ListSilencesQuery, UpdateSilenceInput } from './silences.schema.js';
import type { SilencesRepository } from './silences.repository.js';

export interface SilencesServiceDeps {
  silences: SilencesRepository;
  access: OrganizationAccess;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  applier: SilenceApplier;
  /** Tells the boundary timer of a start or end to apply. */
  boundaryAt(at: Date): void;
  wakeDispatcher(): void;
  clock: Clock;
}

const mustEndLater = () => validationFailed('ends_at must be in the future', [{ path: 'ends_at', message: 'must be in the future' }]);

export function createSilencesService(deps: SilencesServiceDeps) {
  const { silences, access, clock } = deps;

  const findIn = async (organizationId: string, id: string) => {
    const found = await silences.find(organizationId, id);
    if (!found) throw notFound('silence');
    return found;
  };

  /** Applies the organization's silences now and remembers the silence's next boundary. */
  async function applied(silence: Silence, boundary: Date | null): Promise<Silence> {
    const planned = await deps.transaction((tx) => deps.applier.apply(tx, [silence.organizationId]));
    if (planned > 0) deps.wakeDispatcher();
    if (boundary) deps.boundaryAt(boundary);
    return silence;
  }

  async function expireNow(current: Silence): Promise<Silence> {
    const now = clock.now();
    if (stateAt(current, now) === 'expired') return current;
    const startsAt = current.startsAt < now ? current.startsAt : now;
    return applied(await silences.update({ ...current, startsAt, endsAt: now }, null), null);
  }

  return {
    async list(actor: Actor, query: ListSilencesQuery): Promise<Silence[]> {
      return silences.list(await access.resolveReadable(actor), query.state, clock.now());
    },
    async get(actor: Actor, id: string): Promise<Silence> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async create(actor: Actor, input: CreateSilenceInput): Promise<Silence> {
      const organizationId = await access.resolveWritable(actor);
      const now = clock.now();
      const startsAt = input.starts_at ? new Date(input.starts_at) : now;
      const endsAt = new Date(input.ends_at);
      if (endsAt <= now) throw mustEndLater();
      const boundary = nextBoundary({ startsAt, endsAt }, now);
      const silence = await silences.insert({ id: randomUUID(), organizationId, matchers: input.matchers, startsAt, endsAt, comment: input.comment, createdBy: actor.userId }, boundary);
      return applied(silence, boundary);
    },
    async update(actor: Actor, id: string, input: UpdateSilenceInput): Promise<Silence> {
      const current = await findIn(await access.resolveWritable(actor), id);
      const now = clock.now();
      const startsAt = input.starts_at ? new Date(input.starts_at) : current.startsAt;
      const endsAt = input.ends_at ? new Date(input.ends_at) : current.endsAt;
      if (endsAt <= startsAt) throw validationFailed('ends_at must be after starts_at', [{ path: 'ends_at', message: 'must be after starts_at' }]);
      // An expired silence may be read but not brought back: make a new one.
      if (stateAt(current, now) === 'expired' || endsAt <= now) throw mustEndLater();
      const boundary = nextBoundary({ startsAt, endsAt }, now);
      const changed = { id, matchers: input.matchers ?? current.matchers, startsAt, endsAt, comment: input.comment ?? current.comment };
      return applied(await silences.update(changed, boundary), boundary);
    },
    /** Ends the silence now: alerts it kept quiet that still fire notify. */
    async expire(actor: Actor, id: string): Promise<Silence> {
      return expireNow(await findIn(await access.resolveWritable(actor), id));
    },
    /** Expires the silence first, so that what it kept quiet is heard, then forgets it. */
    async remove(actor: Actor, id: string): Promise<void> {
      await expireNow(await findIn(await access.resolveWritable(actor), id));
      await silences.delete(id);
    },
  };
}

export type SilencesService = ReturnType<typeof createSilencesService>;
