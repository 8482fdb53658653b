// Single sign-on setup (admins): the OpenID Connect provider, the e-mail domains it signs in,
// which of its groups become which role, and whether passwords still work. The callback URL
// to register at the provider is shown with a copy button; "Test connection" tries discovery
// and the client credentials with what the form holds, saved or not.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useOrg, useSession } from '../../session/session';
import { CopyButton } from '../../ui/copy-button';
import { DeleteButton } from '../../ui/delete-button';
import { CheckboxField, SelectField, TextAreaField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems, LoadError, Loading, Page } from '../../ui/page';
import { SSO_PATH, type MappedRole, type SsoSettings, type SsoSettingsBody, type SsoTestResult } from './sso-types';
import './sso.css';

const ROLES: MappedRole[] = ['viewer', 'member', 'admin'];

export default function SsoPage() {
  const org = useOrg();
  const { canManage, organization } = useSession();
  const settings = useQuery({
    queryKey: queryKeys.resource(org, SSO_PATH),
    // No settings yet is a 404: the form starts empty.
    queryFn: () => api.get<SsoSettings>(SSO_PATH).catch((err: unknown) => (err instanceof ApiError && err.status === 404 ? null : Promise.reject(err))),
    enabled: canManage,
  });

  return (
    <Page title="Single sign-on">
      <p className="muted">
        Members sign in through your identity provider with OpenID Connect (Keycloak, Okta, Microsoft Entra ID, Google…). The first sign-in creates their account; each
        sign-in sets their role from their groups, and someone no longer allowed loses access at their next sign-in.
      </p>
      {!canManage ? (
        <p className="muted">Only admins and owners can set up single sign-on.</p>
      ) : settings.isError ? (
        <LoadError error={settings.error} retry={() => void settings.refetch()} />
      ) : settings.isPending || !organization ? (
        <Loading what="the single sign-on settings" />
      ) : (
        <>
          <CallbackUrl url={settings.data?.callback_url ?? `${window.location.origin}/api/v1/auth/sso/${organization.slug}/callback`} />
          <SsoForm saved={settings.data} />
        </>
      )}
    </Page>
  );
}

function CallbackUrl({ url }: { url: string }) {
  return (
    <section className="card" aria-labelledby="sso-callback">
      <h2 id="sso-callback">Callback URL</h2>
      <p className="muted">Register it at your provider as the redirect URI of the client (scopes: openid email profile, and groups where the provider has it).</p>
      <p className="sso-callback">
        <code>{url}</code> <CopyButton text={url} label="Copy callback URL" />
      </p>
    </section>
  );
}

function SsoForm({ saved }: { saved: SsoSettings | null }) {
  const org = useOrg();
  const client = useQueryClient();
  const [issuer, setIssuer] = useState(saved?.issuer ?? '');
  const [clientId, setClientId] = useState(saved?.client_id ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [domains, setDomains] = useState(saved?.allowed_domains.join('\n') ?? '');
  const [groupsClaim, setGroupsClaim] = useState(saved?.groups_claim ?? 'groups');
  const [mapping, setMapping] = useState(saved?.role_mapping ?? []);
  const [defaultRole, setDefaultRole] = useState<MappedRole | ''>(saved?.default_role ?? '');
  const [required, setRequired] = useState(saved?.required ?? false);
  const [enabled, setEnabled] = useState(saved?.enabled ?? true);

  const key = queryKeys.resource(org, SSO_PATH);
  const save = useMutation({
    mutationFn: (body: SsoSettingsBody) => api.put<SsoSettings>(SSO_PATH, body),
    onSuccess: (updated) => client.setQueryData(key, updated),
  });
  const test = useMutation({
    mutationFn: () => api.post<SsoTestResult>(`${SSO_PATH}/test`, { issuer: issuer.trim() || undefined, client_id: clientId.trim() || undefined, client_secret: clientSecret || undefined }),
  });
  const errors = formErrors(save.error);
  const fields = ['issuer', 'client_id', 'client_secret', 'allowed_domains', 'groups_claim', 'role_mapping', 'default_role'];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      issuer: issuer.trim(),
      client_id: clientId.trim(),
      ...(clientSecret ? { client_secret: clientSecret } : {}),
      allowed_domains: domains.split(/[\s,]+/).filter(Boolean),
      groups_claim: groupsClaim.trim() || 'groups',
      role_mapping: mapping.filter((m) => m.group.trim() !== ''),
      default_role: defaultRole || null,
      required,
      enabled,
    });
  };
  const setRow = (index: number, change: Partial<(typeof mapping)[number]>) => setMapping(mapping.map((m, i) => (i === index ? { ...m, ...change } : m)));

  return (
    <form className="card" onSubmit={submit} aria-labelledby="sso-provider" noValidate>
      <h2 id="sso-provider">Identity provider</h2>
      <FormProblems messages={errors.summary(fields)} />
      {save.isSuccess && (
        <p className="muted" role="status">
          Saved.
        </p>
      )}
      <div className="form-grid">
        <TextField label="Issuer URL" required value={issuer} onChange={(e) => setIssuer(e.target.value)} error={errors.field('issuer')} hint="https://… (or its /.well-known/openid-configuration); plain http only on 127.0.0.1 or localhost." />
        <TextField label="Client ID" required value={clientId} onChange={(e) => setClientId(e.target.value)} error={errors.field('client_id')} />
        <TextField
          label="Client secret"
          type="password"
          autoComplete="off"
          value={clientSecret}
          onChange={(e) => setClientSecret(e.target.value)}
          error={errors.field('client_secret')}
          hint={saved ? 'Stored sealed and never shown; leave empty to keep it.' : 'Stored sealed and never shown again.'}
        />
      </div>
      <TextAreaField label="Allowed e-mail domains" rows={2} value={domains} onChange={(e) => setDomains(e.target.value)} error={errors.field('allowed_domains')} hint="One per line, e.g. example.com. People of other domains are not let in; an e-mail of these domains finds this provider on the sign-in page." />
      <TestConnection result={test.data} error={test.error} busy={test.isPending} onTest={() => test.mutate()} />

      <h3>Roles from groups</h3>
      <TextField label="Groups claim" value={groupsClaim} onChange={(e) => setGroupsClaim(e.target.value)} error={errors.field('groups_claim')} hint="The claim listing a person's groups (a dotted name reads a nested one, e.g. realm_access.roles)." />
      <FormProblems messages={errors.field('role_mapping') ? [errors.field('role_mapping')!] : []} />
      <ul className="sso-mapping">
        {mapping.map((m, i) => (
          <li key={i}>
            <TextField label={`Group ${i + 1}`} value={m.group} onChange={(e) => setRow(i, { group: e.target.value })} />
            <SelectField label={`Role for group ${i + 1}`} value={m.role} onChange={(e) => setRow(i, { role: e.target.value as MappedRole })}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </SelectField>
            <button type="button" onClick={() => setMapping(mapping.filter((_, j) => j !== i))} aria-label={`Remove group ${i + 1}`}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="sso-add-group" onClick={() => setMapping([...mapping, { group: '', role: 'member' }])}>
        Add a group
      </button>
      <SelectField label="People in no listed group" value={defaultRole} onChange={(e) => setDefaultRole(e.target.value as MappedRole | '')} error={errors.field('default_role')} hint="The highest role of a person's groups wins. Owners are never changed by the provider.">
        <option value="">are not let in</option>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            join as {r}
          </option>
        ))}
      </SelectField>

      <h3>Sign-in</h3>
      <CheckboxField label="Single sign-on enabled" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
      <CheckboxField
        label="Require single sign-on"
        checked={required}
        onChange={(e) => setRequired(e.target.checked)}
        hint="Members can no longer sign in to this organization with a password. Owners keep a break-glass password; each use is recorded in the audit log."
      />
      <div className="actions">
        {saved && <DeleteButton what="single sign-on" label="Remove" onDelete={() => api.del(SSO_PATH).then(() => client.setQueryData(key, null))} />}
        <button type="submit" className="primary" disabled={save.isPending}>
          Save
        </button>
      </div>
    </form>
  );
}

function TestConnection({ result, error, busy, onTest }: { result: SsoTestResult | undefined; error: Error | null; busy: boolean; onTest(): void }) {
  return (
    <div className="sso-test">
      <button type="button" onClick={onTest} disabled={busy}>
        {busy ? 'Testing…' : 'Test connection'}
      </button>
      <div role="status" aria-live="polite">
        {error && <p className="form-error">{error.message}</p>}
        {result &&
          (result.ok ? (
            <p className="sso-test-ok">
              <span className="status-dot" aria-hidden="true" /> Connection works: {result.message}.
              {result.authorization_endpoint && (
                <>
                  {' '}
                  Sign-in page: <code>{result.authorization_endpoint}</code>
                </>
              )}
            </p>
          ) : (
            <p className="form-error">Connection failed: {result.message}</p>
          ))}
      </div>
    </div>
  );
}
