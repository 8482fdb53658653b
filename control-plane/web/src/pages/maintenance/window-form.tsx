// The form of a maintenance window: one-off (times entered in the browser's time zone, sent
// as UTC) or recurring (a cron schedule read in a chosen time zone, and a duration). Sending
// the fields of one form switches a saved window to it.
import { useState, type FormEvent } from 'react';
import { useSaveResource } from '../../api/resources';
import type { Service } from '../../api/types';
import { CheckboxField, TextField } from '../../ui/field';
import { FormActions } from '../../ui/form-actions';
import { formErrors } from '../../ui/form-errors';
import { browserTimeZone, localInputToIso, toLocalInput } from '../../ui/local-time';
import { FormProblems } from '../../ui/page';
import { CheckboxGroup } from '../channels/checkbox-group';
import { MAINTENANCE_PATH, type MaintenanceWindow, type WindowBody } from './maintenance-types';
import { AnnounceFields } from './announce-fields';
import { NextOccurrences } from './occurrences';
import { TimeZoneField } from '../../ui/time-zone-field';

const BROWSER_ZONE = browserTimeZone();
const ONE_OFF_FIELDS = ['starts_at', 'ends_at'];
const RECURRING_FIELDS = ['schedule', 'timezone', 'duration_minutes'];

interface WindowFormProps {
  window?: MaintenanceWindow;
  services: Service[];
  statusPages: { id: string; title: string }[];
  onDone(): void;
}

export function WindowForm({ window: current, services, statusPages, onDone }: WindowFormProps) {
  const [name, setName] = useState(current?.name ?? '');
  const [form, setForm] = useState<'once' | 'recurring'>(current?.schedule ? 'recurring' : 'once');
  const [startsAt, setStartsAt] = useState(() => toLocalInput(current?.starts_at));
  const [endsAt, setEndsAt] = useState(() => toLocalInput(current?.ends_at));
  const [schedule, setSchedule] = useState(current?.schedule ?? '0 2 * * 0');
  const [timezone, setTimezone] = useState(current?.timezone ?? BROWSER_ZONE);
  const [duration, setDuration] = useState(String(current?.duration_minutes ?? 60));
  const [serviceIds, setServiceIds] = useState(current?.service_ids ?? []);
  const [pageIds, setPageIds] = useState(current?.status_page_ids ?? []);
  const [announceHours, setAnnounceHours] = useState(String(current?.announce_hours_before ?? 72));
  const save = useSaveResource<MaintenanceWindow>(MAINTENANCE_PATH);
  const errors = formErrors(save.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // An empty duration goes as a missing field, so the API names it.
    const timing =
      form === 'once'
        ? { starts_at: localInputToIso(startsAt), ends_at: localInputToIso(endsAt) }
        : { schedule, timezone, duration_minutes: duration.trim() === '' ? undefined : Number(duration) };
    const announce = { status_page_ids: pageIds, announce_hours_before: announceHours.trim() === '' ? undefined : Number(announceHours) };
    const body: Partial<WindowBody> = { name, ...timing, service_ids: serviceIds, ...announce };
    save.mutate({ id: current?.id, body }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name', 'service_ids', 'status_page_ids', 'announce_hours_before', ...(form === 'once' ? ONE_OFF_FIELDS : RECURRING_FIELDS)])} />
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} required autoFocus />
      <fieldset>
        <legend>When</legend>
        <div className="window-forms">
          <CheckboxField type="radio" name="window-form" label="One-off" checked={form === 'once'} onChange={() => setForm('once')} />
          <CheckboxField type="radio" name="window-form" label="Recurring" checked={form === 'recurring'} onChange={() => setForm('recurring')} />
        </div>
        {form === 'once' ? (
          <div className="form-grid">
            <TextField label="Starts" type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} error={errors.field('starts_at')} hint={`Your time zone (${BROWSER_ZONE}).`} required />
            <TextField label="Ends" type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} error={errors.field('ends_at')} required />
          </div>
        ) : (
          <>
            <div className="form-grid">
              <TextField
                label="Schedule (cron)"
                value={schedule}
                onChange={(e) => setSchedule(e.target.value)}
                error={errors.field('schedule')}
                hint={
                  <>
                    Each occurrence starts at a run of this expression: minute hour day month weekday, e.g. <code>0 2 * * 0</code> for Sundays at 02:00; or <code>@daily</code>.
                  </>
                }
                required
              />
              <TimeZoneField value={timezone} onChange={setTimezone} error={errors.field('timezone')} />
            </div>
            <TextField
              label="Duration (minutes)"
              type="number"
              min={1}
              max={10_080}
              inputMode="numeric"
              value={duration}
              onChange={(e) => setDuration(e.target.value)}
              error={errors.field('duration_minutes')}
              hint="How long each occurrence lasts: 60 is an hour, at most 10080 (a week)."
              required
            />
          </>
        )}
        {current && (
          <div className="field">
            <p className="hint">Next occurrences as saved, in your time zone:</p>
            <NextOccurrences occurrences={current.next_occurrences} label="Next occurrences as saved" />
          </div>
        )}
      </fieldset>
      <CheckboxGroup
        legend="Services"
        options={services.map((s) => ({ value: s.id, label: s.name }))}
        selected={serviceIds}
        onChange={setServiceIds}
        error={errors.field('service_ids')}
        hint="None chosen: the window covers all services."
        none="No service yet: the window covers all services."
      />
      <AnnounceFields statusPages={statusPages} pageIds={pageIds} onPageIds={setPageIds} hours={announceHours} onHours={setAnnounceHours} errors={errors} />
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={current ? 'Save' : 'Create window'} />
    </form>
  );
}
