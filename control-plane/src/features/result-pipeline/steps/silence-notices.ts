// Step 3 (silences): the notices of services a silence covers go nowhere; their new alerts
// are marked silenced.
import type { SelectableService } from '../../services/service-selector.js';
import type { NoticeSilencer } from '../../silences/notice-silencer.js';
import type { PipelineStep } from '../result-batch.js';

export function silenceNotices(silence: NoticeSilencer): PipelineStep {
  return async (tx, batch) => {
    if (batch.alerts.notices.length === 0) return;
    const noticed = new Set(batch.alerts.notices.map((n) => n.alert.serviceId));
    const services = new Map<string, SelectableService>();
    for (const r of batch.stored) if (noticed.has(r.serviceId)) services.set(r.serviceId, r.service);
    batch.alerts.notices = await silence(tx, batch.alerts.notices, services);
  };
}
