// Which services a report covers: all, chosen ones, or those carrying chosen tags.
import type { Service } from '../../api/types';
import { CheckboxField } from '../../ui/field';
import { CheckboxGroup } from '../channels/checkbox-group';

export type ReportFilter = { by: 'all' } | { by: 'services'; ids: string[] } | { by: 'tags'; tags: string[] };

export function filterQuery(filter: ReportFilter): { service_ids?: string; tags?: string } {
  if (filter.by === 'services') return { service_ids: filter.ids.join(',') };
  if (filter.by === 'tags') return { tags: filter.tags.join(',') };
  return {};
}

const CHOICES = [
  { by: 'all', label: 'All services' },
  { by: 'services', label: 'Chosen services' },
  { by: 'tags', label: 'Services with tags' },
] as const;

export function ReportFilterFields({ filter, onChange, services, error }: { filter: ReportFilter; onChange(filter: ReportFilter): void; services: Service[]; error?: string }) {
  const tags = [...new Set(services.flatMap((s) => s.tags))].sort();
  const choose = (by: ReportFilter['by']) => onChange(by === 'all' ? { by } : by === 'services' ? { by, ids: [] } : { by, tags: [] });
  return (
    <fieldset>
      <legend>Services</legend>
      <div className="report-filter-choices">
        {CHOICES.map((c) => (
          <CheckboxField key={c.by} type="radio" name="report-filter" label={c.label} checked={filter.by === c.by} onChange={() => choose(c.by)} />
        ))}
      </div>
      {filter.by === 'services' && (
        <CheckboxGroup
          legend="Services in the report"
          options={services.map((s) => ({ value: s.id, label: s.name }))}
          selected={filter.ids}
          onChange={(ids) => onChange({ by: 'services', ids })}
          error={error}
          none="No service yet."
        />
      )}
      {filter.by === 'tags' && (
        <CheckboxGroup
          legend="Tags"
          options={tags.map((t) => ({ value: t, label: t }))}
          selected={filter.tags}
          onChange={(chosen) => onChange({ by: 'tags', tags: chosen })}
          hint="Services carrying any of these tags."
          error={error}
          none="No service has a tag."
        />
      )}
    </fieldset>
  );
}
