// SVG badges of a service (status, uptime, mean response time, certificate days left) and the
// badge token that shows them for a service no public status page lists. Whoever may not see
// a badge gets the very same "not found" as for an id that does not exist.
import { daysRemaining } from '../../../../shared/src/days-remaining.js';
import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { CheckHistoryRepository } from '../checks/check-history.repository.js';
import { PERIODS, type Period } from '../checks/history.schema.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import { badgeSvg, certificateFace, responseTimeFace, statusFace, uptimeFace, type BadgeFace } from './badge-svg.js';
import { badgeTokenMatches, hashBadgeToken, newBadgeToken } from './badge-tokens.js';
import type { BadgeSubject, BadgesRepository } from './badges.repository.js';

export const BADGE_KINDS = ['status', 'uptime', 'response-time', 'certificate'] as const;
export type BadgeKind = (typeof BADGE_KINDS)[number];

export interface BadgeRequest {
  label?: string;
  token?: string;
  /** Uptime badges only. */
  period: Period;
}

export interface Badge {
  svg: string;
  /** Opened by the badge token rather than a public page: not for shared caches. */
  viaToken: boolean;
}

export interface BadgeToken {
  token: string;
  urls: Record<BadgeKind, string>;
}

/** The response-time badge shows the mean of the last day. */
const RESPONSE_TIME_WINDOW_MS = 86_400_000;

export interface BadgesDeps {
  badges: BadgesRepository;
  /** Rollup reads that settle the backlog first. */
  history: CheckHistoryRepository;
  access: OrganizationAccess;
  clock: Clock;
  /** Where the API is reached from outside: badge URLs are pasted into READMEs. */
  publicUrl: string;
}

export function createBadgesService({ badges, history, access, clock, publicUrl }: BadgesDeps) {
  async function faceOf(kind: BadgeKind, subject: BadgeSubject, { label, period }: BadgeRequest): Promise<BadgeFace> {
    const now = clock.now();
    switch (kind) {
      case 'status':
        return statusFace(subject.status, label);
      case 'uptime': {
        const { total, successful } = await history.uptime(subject.id, new Date(now.getTime() - PERIODS[period] * 1000), now);
        return uptimeFace(total === 0 ? null : (successful / total) * 100, label);
      }
      case 'response-time': {
        const [summary] = await history.summaries([subject.id], new Date(now.getTime() - RESPONSE_TIME_WINDOW_MS), now);
        return responseTimeFace(summary?.avgResponseTimeMs ?? null, label);
      }
      case 'certificate': {
        const validTo = await badges.certificateValidTo(subject.id);
        return certificateFace(validTo && daysRemaining(validTo, now), label);
      }
    }
  }

  /** The service for a member or above of its organization; 404 for anyone who may not see it. */
  async function writable(actor: Actor, serviceId: string): Promise<string> {
    const subject = await badges.find(serviceId);
    const role =
      subject &&
      (await access.roleIn(actor, subject.organizationId).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'FORBIDDEN') return null;
        throw err;
      }));
    if (!subject || !role) throw notFound('service');
    access.assertCanWrite(role);
    return subject.id;
  }

  const urlsOf = (serviceId: string, token: string): Record<BadgeKind, string> =>
    Object.fromEntries(BADGE_KINDS.map((kind) => [kind, `${publicUrl}/api/v1/badges/${serviceId}/${kind}.svg?token=${encodeURIComponent(token)}`])) as Record<BadgeKind, string>;

  return {
    async badge(kind: BadgeKind, serviceId: string, request: BadgeRequest): Promise<Badge> {
      const subject = await badges.find(serviceId);
      const viaToken = subject !== null && request.token !== undefined && badgeTokenMatches(request.token, subject.tokenHash);
      if (!subject || (!viaToken && !subject.onPublicPage)) throw notFound('service');
      return { svg: badgeSvg(await faceOf(kind, subject, request)), viaToken };
    },

    /** A new token; the one before stops working. */
    async createToken(actor: Actor, serviceId: string): Promise<BadgeToken> {
      const id = await writable(actor, serviceId);
      const token = newBadgeToken();
      await badges.setTokenHash(id, hashBadgeToken(token));
      return { token, urls: urlsOf(id, token) };
    },

    async deleteToken(actor: Actor, serviceId: string): Promise<void> {
      await badges.setTokenHash(await writable(actor, serviceId), null);
    },
  };
}

export type BadgesService = ReturnType<typeof createBadgesService>;
