// Where and how early a maintenance window is announced: the status pages that show it as
// upcoming from that many hours before, as in progress during it, and in their history after.
import { TextField } from '../../ui/field';
import type { FormErrors } from '../../ui/form-errors';
import { CheckboxGroup } from '../channels/checkbox-group';

interface AnnounceFieldsProps {
  statusPages: { id: string; title: string }[];
  pageIds: string[];
  onPageIds(ids: string[]): void;
  hours: string;
  onHours(hours: string): void;
  errors: FormErrors;
}

export function AnnounceFields({ statusPages, pageIds, onPageIds, hours, onHours, errors }: AnnounceFieldsProps) {
  return (
    <>
      <CheckboxGroup
        legend="Announce on status pages"
        options={statusPages.map((p) => ({ value: p.id, label: p.title }))}
        selected={pageIds}
        onChange={onPageIds}
        error={errors.field('status_page_ids')}
        hint="Visitors of these pages see the window ahead, while it runs (its services “under maintenance”, not down) and in the history; their subscribers are told."
        none="No status page yet."
      />
      {pageIds.length > 0 && (
        <TextField
          label="Announce hours before"
          type="number"
          min={0}
          inputMode="numeric"
          value={hours}
          onChange={(e) => onHours(e.target.value)}
          error={errors.field('announce_hours_before')}
          hint="How long before each start the pages show it as upcoming: 72 is three days."
        />
      )}
    </>
  );
}
