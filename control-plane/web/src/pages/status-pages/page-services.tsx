// What a status page shows: its services, in the order chosen, and its components (named
// groups of them, shown together under the group's worst status). A service is in one group
// at most: each chosen service has a "Group" choice once groups exist.
import type { UseQueryResult } from '@tanstack/react-query';
import type { Service } from '../../api/types';
import { CheckboxField, TextField } from '../../ui/field';
import type { FormErrors } from '../../ui/form-errors';
import { Loading, LoadError } from '../../ui/page';
import type { ServiceGroup } from './status-page-types';

export interface GroupDraft {
  /** Stable across renames, for React and for the services' choices. */
  key: string;
  name: string;
}

export interface ServicesDraft {
  serviceIds: string[];
  groups: GroupDraft[];
  /** service id -> group key */
  groupOf: Record<string, string>;
}

let nextKey = 0;
const newKey = () => `group-${++nextKey}`;

export function servicesDraftOf(serviceIds: string[], groups: ServiceGroup[]): ServicesDraft {
  const drafts = groups.map((g) => ({ key: newKey(), name: g.name }));
  const groupOf: Record<string, string> = {};
  groups.forEach((g, i) => g.service_ids.forEach((id) => (groupOf[id] = drafts[i]!.key)));
  // Grouped services are on the page even if an older page did not list them.
  const ids = [...new Set([...serviceIds, ...Object.keys(groupOf)])];
  return { serviceIds: ids, groups: drafts, groupOf };
}

/** The page's service_ids and groups as the API takes them. */
export function servicesBody(draft: ServicesDraft): { service_ids: string[]; groups: ServiceGroup[] } {
  return {
    service_ids: draft.serviceIds,
    groups: draft.groups.map((g) => ({ name: g.name.trim(), service_ids: draft.serviceIds.filter((id) => draft.groupOf[id] === g.key) })),
  };
}

interface PageServicesProps {
  draft: ServicesDraft;
  onChange(draft: ServicesDraft): void;
  services: UseQueryResult<Service[]>;
  errors: FormErrors;
}

export function PageServices({ draft, onChange, services, errors }: PageServicesProps) {
  return (
    <>
      <Groups draft={draft} onChange={onChange} errors={errors} />
      <fieldset>
        <legend>Services</legend>
        {errors.field('service_ids') && <p className="field-error">{errors.field('service_ids')}</p>}
        {services.isPending ? (
          <Loading what="services" />
        ) : services.isError ? (
          <LoadError error={services.error} retry={() => services.refetch()} />
        ) : services.data.length === 0 ? (
          <p className="muted">No services yet.</p>
        ) : (
          <ul className="service-choices">
            {services.data.map((service) => (
              <ServiceChoice key={service.id} service={service} draft={draft} onChange={onChange} />
            ))}
          </ul>
        )}
      </fieldset>
    </>
  );
}

function Groups({ draft, onChange, errors }: Omit<PageServicesProps, 'services'>) {
  const rename = (key: string, name: string) => onChange({ ...draft, groups: draft.groups.map((g) => (g.key === key ? { ...g, name } : g)) });
  const remove = (key: string) =>
    onChange({ ...draft, groups: draft.groups.filter((g) => g.key !== key), groupOf: Object.fromEntries(Object.entries(draft.groupOf).filter(([, k]) => k !== key)) });
  return (
    <fieldset>
      <legend>Components</legend>
      <p className="hint">
        Groups of services shown together under one name with the worst status among them, folded open or closed by the visitor. Choose each service&apos;s group in the list
        below.
      </p>
      {errors.field('groups') && <p className="field-error">{errors.field('groups')}</p>}
      <ol className="group-list">
        {draft.groups.map((group, i) => (
          <li key={group.key} className="group-row">
            <TextField label={`Name of group ${i + 1}`} value={group.name} onChange={(e) => rename(group.key, e.target.value)} error={errors.field(`groups.${i}.name`)} required />
            <button type="button" className="danger" onClick={() => remove(group.key)} aria-label={`Remove group ${group.name || i + 1}`}>
              Remove
            </button>
          </li>
        ))}
      </ol>
      <div className="actions group-actions">
        <button type="button" onClick={() => onChange({ ...draft, groups: [...draft.groups, { key: newKey(), name: '' }] })}>
          Add group
        </button>
      </div>
    </fieldset>
  );
}

function ServiceChoice({ service, draft, onChange }: { service: Service; draft: ServicesDraft; onChange(draft: ServicesDraft): void }) {
  const chosen = draft.serviceIds.includes(service.id);
  const toggle = (on: boolean) => {
    const groupOf = { ...draft.groupOf };
    if (!on) delete groupOf[service.id];
    onChange({ ...draft, serviceIds: on ? [...draft.serviceIds, service.id] : draft.serviceIds.filter((id) => id !== service.id), groupOf });
  };
  const setGroup = (key: string) => {
    const groupOf = { ...draft.groupOf };
    if (key) groupOf[service.id] = key;
    else delete groupOf[service.id];
    onChange({ ...draft, groupOf });
  };
  return (
    <li className="service-choice">
      <CheckboxField label={service.name} checked={chosen} onChange={(e) => toggle(e.target.checked)} />
      {chosen && draft.groups.length > 0 && (
        <select aria-label={`Group of ${service.name}`} value={draft.groupOf[service.id] ?? ''} onChange={(e) => setGroup(e.target.value)}>
          <option value="">No group</option>
          {draft.groups.map((g, i) => (
            <option key={g.key} value={g.key}>
              {g.name.trim() || `Group ${i + 1}`}
            </option>
          ))}
        </select>
      )}
    </li>
  );
}
