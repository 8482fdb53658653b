// Keeps the notices of silenced services from being sent: an alert a batch opens for a
// service a silence covers is marked silenced_by it and notifies nobody; a covered service's
// resolution or flapping notice is dropped too. The silence's end notifies what still fires.
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import type { Notice } from '../notifications/delivery.js';
import type { SelectableService } from '../services/service-selector.js';
import { coveringSilence } from './silence.js';
import type { SilenceChange, SilencesRepository } from './silences.repository.js';

export type NoticeSilencer = (tx: Tx, notices: Notice[], services: ReadonlyMap<string, SelectableService>) => Promise<Notice[]>;

export function createNoticeSilencer(silences: SilencesRepository, clock: Clock): NoticeSilencer {
  return async (tx, notices, services) => {
    if (notices.length === 0) return notices;
    const active = await silences.activeFor(tx, [...new Set(notices.map((n) => n.alert.organizationId))], clock.now());
    if (active.size === 0) return notices;
    const kept: Notice[] = [];
    const changes: SilenceChange[] = [];
    for (const notice of notices) {
      const { alert } = notice;
      const service = alert.serviceId ? services.get(alert.serviceId) : undefined;
      const silence = service && coveringSilence(active.get(alert.organizationId) ?? [], service);
      if (!silence) {
        kept.push(notice);
        continue;
      }
      if (alert.status !== 'resolved' && alert.silencedBy !== silence.id) {
        alert.silencedBy = silence.id;
        changes.push({ alertId: alert.id, silencedBy: silence.id });
      }
    }
    await silences.setSilenced(tx, changes);
    return kept;
  };
}
