// Who may see a status page: anyone, anyone with its password, the organization's signed-in
// members, or visitors from listed addresses. The password is write-only: the API says only
// whether one is set, and an empty field keeps it.
import { CheckboxField, TextAreaField, TextField } from '../../ui/field';
import type { FormErrors } from '../../ui/form-errors';
import type { PageAccess } from './status-page-types';

export interface AccessDraft {
  access: PageAccess;
  password: string;
  /** One address or CIDR range a line, as typed. */
  allowlist: string;
}

const CHOICES: { value: PageAccess; label: string }[] = [
  { value: 'public', label: 'Public: anyone with the link' },
  { value: 'password', label: 'Password: anyone who knows the password' },
  { value: 'members', label: 'Members: people signed in to this organization' },
  { value: 'ip_allowlist', label: 'IP allowlist: visitors from listed addresses' },
];

export const ACCESS_FIELDS = ['access', 'public', 'password', 'ip_allowlist'];

/** The allowlist as the API takes it: the non-empty lines, trimmed. */
export function allowlistOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);
}

interface AccessFieldsProps {
  draft: AccessDraft;
  onChange(draft: AccessDraft): void;
  passwordSet: boolean;
  errors: FormErrors;
}

export function AccessFields({ draft, onChange, passwordSet, errors }: AccessFieldsProps) {
  const set = (patch: Partial<AccessDraft>) => onChange({ ...draft, ...patch });
  return (
    <fieldset>
      <legend>Who may see it</legend>
      {(errors.field('access') ?? errors.field('public')) && <p className="field-error">{errors.field('access') ?? errors.field('public')}</p>}
      {CHOICES.map((choice) => (
        <CheckboxField key={choice.value} type="radio" name="page-access" label={choice.label} checked={draft.access === choice.value} onChange={() => set({ access: choice.value })} />
      ))}
      {draft.access === 'password' && (
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          value={draft.password}
          onChange={(e) => set({ password: e.target.value })}
          error={errors.field('password')}
          hint={passwordSet ? 'A password is set: leave this empty to keep it, or type a new one.' : 'At least 8 characters. Visitors type it once; their browser remembers it.'}
        />
      )}
      {draft.access === 'ip_allowlist' && (
        <TextAreaField
          label="Allowed addresses"
          value={draft.allowlist}
          onChange={(e) => set({ allowlist: e.target.value })}
          error={errors.field('ip_allowlist')}
          hint={
            <>
              IPv4 or IPv6 addresses or CIDR ranges, one a line, e.g. <code>203.0.113.0/24</code> or <code>2001:db8::/32</code>. Behind a proxy, the control plane
              reads the client address from <code>TRUSTED_PROXIES</code>.
            </>
          }
          rows={3}
        />
      )}
    </fieldset>
  );
}
