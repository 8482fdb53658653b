// What replicas tell each other. A message carries ids and versions only, never rows:
// PostgreSQL caps a NOTIFY payload at 8,000 bytes, and the receiver reads what it needs. What
// one replica must hand another and no table holds (a test run) travels in sealed parts.
import { z } from 'zod';

const id = z.string().min(1);

/** A parcel's parts at most (parcels.ts): 1.5 MB, more than a request body (1 MiB) makes. */
export const MAX_PARCEL_PARTS = 256;
/** Characters of a parcel in one part, well within a NOTIFY with the envelope around it. */
export const PARCEL_PART_CHARS = 6_000;
/** Part `n` of the `of` parts of sealed parcel `id` for replica `to`. */
const parcelPart = {
  to: id,
  id,
  n: z.number().int().min(0),
  of: z.number().int().min(1).max(MAX_PARCEL_PARTS),
  part: z.string().max(PARCEL_PART_CHARS),
};

/** Service ids in one message about many (with their versions, within a NOTIFY's 8,000 bytes). */
export const MAX_IDS_PER_MESSAGE = 100;
const ids = z.array(id).min(1).max(MAX_IDS_PER_MESSAGE);

export const ClusterMessageSchema = z.discriminatedUnion('k', [
  /** A service was created, changed or deleted: agents' assignments follow it. */
  z.object({ k: z.literal('service'), id, v: z.number().int(), removed: z.boolean() }),
  /** Run a service's check now, on whichever agent holds it. */
  z.object({ k: z.literal('run'), id }),
  /** As `service` for each of many services changed or deleted together (a bulk action); `vs` their versions, in order. */
  z.object({ k: z.literal('services'), ids, vs: z.array(z.number().int()), removed: z.boolean() }),
  /** As `run` for each of many services. */
  z.object({ k: z.literal('runs'), ids }),
  /** Agents of a location came or went: placement there is computed again. */
  z.object({ k: z.literal('placement'), location: z.string() }),
  /** Live events stored as cluster_events row `seq`, about these organizations (absent: too many to name). */
  z.object({ k: z.literal('events'), seq: z.number().int(), orgs: z.array(id).optional() }),
  /** A replica started: the others relay their live events from now on (replica-lease.ts). */
  z.object({ k: z.literal('replica'), id }),
  /** Replica `id` started or stopped following organizations: its rows of replica_follows are read afresh. */
  z.object({ k: z.literal('follows'), id }),
  /** An organization's alert rules changed. */
  z.object({ k: z.literal('rules'), org: id }),
  /** An API key was revoked: no replica may keep accepting it. */
  z.object({ k: z.literal('key'), id }),
  /** Sessions ended: no replica may keep serving their tokens. */
  z.object({ k: z.literal('sessions'), ids }),
  /** Every session and token of user `id` ended (sign out everywhere, a new password). */
  z.object({ k: z.literal('user-sessions'), id }),
  /** A registered agent was deleted or its token revoked: its streams end everywhere. */
  z.object({ k: z.literal('agent'), id }),
  /** A test run for an agent whose stream replica `to` holds (test-run-relay.ts). */
  z.object({ k: z.literal('test-run'), ...parcelPart }),
  /** The outcome of test run `id`, for replica `to`, which asked for it. */
  z.object({ k: z.literal('test-result'), ...parcelPart }),
  /** This replica has handled the message its publisher asked to confirm as `id`. */
  z.object({ k: z.literal('ack'), id }),
]);

export type ClusterMessage = z.infer<typeof ClusterMessageSchema>;
export type ClusterMessageKind = ClusterMessage['k'];

/**
 * A message as sent: with the replica it came from, so a replica can skip its own, and, when
 * its publisher waits for the others to handle it, the id they confirm it with.
 */
export interface Envelope {
  from: string;
  message: ClusterMessage;
  confirm?: string;
}

export function encodeEnvelope({ from, message, confirm }: Envelope): string {
  return JSON.stringify({ ...message, from, c: confirm });
}

// Made once: a zod schema made per message costs more than the message (every create sends one).
const Sender = z.object({ from: z.string(), c: z.string().min(1).optional() });

export function decodeEnvelope(payload: string): Envelope | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const from = Sender.safeParse(raw);
  const message = ClusterMessageSchema.safeParse(raw);
  if (!from.success || !message.success) return undefined;
  return { from: from.data.from, message: message.data, confirm: from.data.c };
}
