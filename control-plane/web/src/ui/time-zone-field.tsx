// The time zone a schedule is read in (heartbeat crons, recurring maintenance): every zone the
// browser knows, UTC and the browser's own first in mind.
import { SelectField } from './field';
import { browserTimeZone } from './local-time';

const ZONES = [...new Set(['UTC', browserTimeZone(), ...Intl.supportedValuesOf('timeZone')])].sort((a, b) => a.localeCompare(b));

export function TimeZoneField({ value, onChange, error }: { value: string; onChange(zone: string): void; error?: string }) {
  return (
    <SelectField label="Time zone" value={value} onChange={(e) => onChange(e.target.value)} error={error} hint="The schedule is read in this zone, daylight saving included.">
      {ZONES.map((zone) => (
        <option key={zone}>{zone}</option>
      ))}
    </SelectField>
  );
}
