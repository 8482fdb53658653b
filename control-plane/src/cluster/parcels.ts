// What one replica must hand another and no table holds (a test run, its outcome) travels on
// the bus itself, as a parcel: sealed with the data key, so that only a replica can read or
// make one (it may hold a check's password), naming inside the seal who sent it, to whom and
// under which id, so that a parcel replayed under another id or to another replica is refused;
// then cut into parts that each fit a NOTIFY. The receiver joins a parcel's parts in whatever
// order they come, and forgets one whose parts stop coming.
import { z } from 'zod';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Logger } from '../logger.js';
import type { ClusterBus } from './cluster-bus.js';
import { MAX_PARCEL_PARTS, PARCEL_PART_CHARS, type ClusterMessage } from './cluster-message.js';

export type ParcelKind = 'test-run' | 'test-result';
type Part = Extract<ClusterMessage, { k: ParcelKind }>;

/** The parts of one parcel are published back to back; one still missing after this is lost. */
const ASSEMBLY_TIMEOUT_MS = 10_000;
/** Parcels being joined at once at most, so parts that never complete hold bounded memory. */
const MAX_OPEN_PARCELS = 64;

const Sealed = z.object({ kind: z.string(), id: z.string(), from: z.string(), to: z.string(), body: z.unknown() });

export interface Parcels {
  /** Seals `body` and publishes it to replica `to`, in as many parts as it takes. */
  send(kind: ParcelKind, to: string, id: string, body: unknown): Promise<void>;
  /** Hands each parcel of `kind` addressed to this replica, opened, to `receive`. */
  receive(kind: ParcelKind, receive: (parcel: { id: string; from: string; body: unknown }) => void): void;
}

export function createParcels(bus: ClusterBus, secrets: SecretBox, logger: Logger): Parcels {
  function open(kind: ParcelKind, id: string, sealed: string): { from: string; body: unknown } | undefined {
    let raw: unknown;
    try {
      raw = JSON.parse(secrets.open(sealed));
    } catch (err) {
      return void logger.warn({ err, kind, id }, 'refused a parcel that does not open with the data key');
    }
    const parsed = Sealed.safeParse(raw);
    const p = parsed.data;
    if (!p || p.kind !== kind || p.id !== id || p.to !== bus.replicaId) return void logger.warn({ kind, id }, 'refused a parcel sealed for another purpose');
    return { from: p.from, body: p.body };
  }

  return {
    async send(kind, to, id, body) {
      const sealed = secrets.seal(JSON.stringify({ kind, id, from: bus.replicaId, to, body }));
      const of = Math.max(1, Math.ceil(sealed.length / PARCEL_PART_CHARS));
      if (of > MAX_PARCEL_PARTS) throw new Error(`a ${kind} parcel of ${sealed.length} characters is over the bus's ${MAX_PARCEL_PARTS} parts`);
      for (let n = 0; n < of; n++) await bus.publish({ k: kind, to, id, n, of, part: sealed.slice(n * PARCEL_PART_CHARS, (n + 1) * PARCEL_PART_CHARS) });
    },
    receive(kind, receive) {
      const joining = new Map<string, { parts: (string | undefined)[]; missing: number; timer: NodeJS.Timeout }>();
      const deliver = (id: string, sealed: string) => {
        const parcel = open(kind, id, sealed);
        if (parcel) receive({ id, ...parcel });
      };
      bus.on(kind, (message: Part) => {
        if (message.to !== bus.replicaId) return;
        if (message.of === 1) return deliver(message.id, message.part);
        let parcel = joining.get(message.id);
        if (!parcel) {
          if (joining.size >= MAX_OPEN_PARCELS) return void logger.warn({ kind, id: message.id }, 'dropped a parcel: too many are being joined');
          const timer = setTimeout(() => joining.delete(message.id), ASSEMBLY_TIMEOUT_MS);
          parcel = { parts: new Array<string | undefined>(message.of), missing: message.of, timer };
          joining.set(message.id, parcel);
        }
        if (message.of !== parcel.parts.length || message.n >= message.of || parcel.parts[message.n] !== undefined) return;
        parcel.parts[message.n] = message.part;
        if (--parcel.missing > 0) return;
        clearTimeout(parcel.timer);
        joining.delete(message.id);
        deliver(message.id, parcel.parts.join(''));
      });
    },
  };
}
