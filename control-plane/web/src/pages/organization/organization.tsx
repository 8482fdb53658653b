// The organization acted in (owners rename it, change its slug and plan) and every
// organization the user belongs to, with the role there and a switch to it.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, apiDownload } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import type { Organization } from '../../api/types';
import { useOrg, useSession } from '../../session/session';
import { SelectField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems, Loading, Page } from '../../ui/page';
import { saveFile } from '../../ui/save-file';
import './organization.css';

/** The plans the API knows (control-plane plans.ts); the current one is kept if it is another. */
const PLANS = ['free', 'unlimited'];

export default function OrganizationPage() {
  const { organization, isOwner } = useSession();
  return (
    <Page title="Organization">
      <section className="card" aria-labelledby="org-details">
        <h2 id="org-details">Details</h2>
        {!organization ? (
          <Loading what="the organization" />
        ) : isOwner ? (
          <OrganizationForm key={organization.id} organization={organization} />
        ) : (
          <>
            <OrganizationFacts organization={organization} />
            <p className="muted">Only owners can change the organization.</p>
          </>
        )}
      </section>
      {isOwner && <Backup />}
      <YourOrganizations />
    </Page>
  );
}

function OrganizationFacts({ organization }: { organization: Organization }) {
  return (
    <dl className="org-facts">
      <dt>Name</dt>
      <dd>{organization.name}</dd>
      <dt>Slug</dt>
      <dd>
        <code>{organization.slug}</code>
      </dd>
      <dt>Plan</dt>
      <dd>{organization.plan}</dd>
      <dt>Your role</dt>
      <dd>{organization.role}</dd>
    </dl>
  );
}

function OrganizationForm({ organization }: { organization: Organization }) {
  const org = useOrg();
  const client = useQueryClient();
  const [name, setName] = useState(organization.name);
  const [slug, setSlug] = useState(organization.slug);
  const [plan, setPlan] = useState(organization.plan);
  const save = useMutation({
    mutationFn: (body: { name: string; slug: string; plan: string }) => api.put<Organization>('/organization', body),
    onSuccess: (updated) => {
      client.setQueryData(queryKeys.organization(org), updated);
      void client.invalidateQueries({ queryKey: queryKeys.organizations(org) });
    },
  });
  const errors = formErrors(save.error);
  const plans = PLANS.includes(organization.plan) ? PLANS : [organization.plan, ...PLANS];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ name, slug, plan });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name', 'slug', 'plan'])} />
      {save.isSuccess && (
        <p className="muted" role="status">
          Saved.
        </p>
      )}
      <div className="form-grid">
        <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} />
        <TextField label="Slug" required value={slug} onChange={(e) => setSlug(e.target.value)} error={errors.field('slug')} hint="Lower-case letters, digits and dashes." />
        <SelectField label="Plan" value={plan} onChange={(e) => setPlan(e.target.value)} error={errors.field('plan')} hint={plan === 'free' ? 'Up to 5 services.' : undefined}>
          {plans.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </SelectField>
      </div>
      <p className="muted">Your role: {organization.role}</p>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save
        </button>
      </div>
    </form>
  );
}

function YourOrganizations() {
  const { organizations, session, switchOrganization } = useSession();
  const [error, setError] = useState<string>();
  const [switching, setSwitching] = useState<string>();

  const switchTo = async (id: string) => {
    setError(undefined);
    setSwitching(id);
    try {
      await switchOrganization(id);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSwitching(undefined);
    }
  };

  return (
    <section aria-labelledby="your-organizations">
      <h2 id="your-organizations">Your organizations</h2>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Slug</th>
              <th scope="col">Your role</th>
              <th scope="col">Plan</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {organizations.map((o) => (
              <tr key={o.id}>
                <td>{o.name}</td>
                <td>
                  <code>{o.slug}</code>
                </td>
                <td>{o.role}</td>
                <td>{o.plan}</td>
                <td>
                  {o.id === session?.organizationId ? (
                    <span className="muted">current</span>
                  ) : (
                    <button type="button" disabled={switching !== undefined} onClick={() => void switchTo(o.id)} aria-label={`Switch to ${o.name}`}>
                      Switch
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The whole installation as one archive, for `npm run admin -- restore`; the API refuses anyone who does not own every organization. */
function Backup() {
  const download = useMutation({
    mutationFn: () => apiDownload('/backup', { body: {}, filename: 'outpost-backup.ndjson.gz' }),
    onSuccess: saveFile,
  });
  return (
    <section className="card" aria-labelledby="backup">
      <h2 id="backup">Backup</h2>
      <p className="muted">
        One archive of every organization of this installation, taken as one consistent moment, to restore with <code>npm run admin -- restore --from FILE</code>. It does
        not hold the keys that open stored passwords and tokens: keep the control plane&apos;s <code>DATA_DIR</code> keys apart, or take the backup on the host with{' '}
        <code>npm run admin -- backup --include-keys</code>.
      </p>
      {download.error && (
        <p className="form-error" role="alert">
          {download.error.message}
        </p>
      )}
      {download.isSuccess && (
        <p className="muted" role="status">
          Downloaded {download.data.filename}.
        </p>
      )}
      <div className="actions">
        <button type="button" className="primary" disabled={download.isPending} onClick={() => download.mutate()}>
          {download.isPending ? 'Taking the backup…' : 'Download a backup'}
        </button>
      </div>
    </section>
  );
}
