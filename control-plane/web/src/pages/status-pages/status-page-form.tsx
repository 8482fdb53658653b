// The editor of a status page: its title and address, who may see it, a custom domain,
// whether open alerts show as incidents, and its services and components.
import { useState, type FormEvent } from 'react';
import { useResourceList, useSaveResource } from '../../api/resources';
import type { Service } from '../../api/types';
import { Dialog } from '../../ui/dialog';
import { CheckboxField, TextAreaField, TextField } from '../../ui/field';
import { FormActions } from '../../ui/form-actions';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { ACCESS_FIELDS, AccessFields, allowlistOf, type AccessDraft } from './access-fields';
import { PageServices, servicesBody, servicesDraftOf, type ServicesDraft } from './page-services';
import { STATUS_PAGES_PATH, type StatusPage, type StatusPageBody } from './status-page-types';

const SHOWN_FIELDS = ['slug', 'title', 'description', 'custom_domain', 'auto_incidents', 'service_ids', 'groups', ...ACCESS_FIELDS];

export function StatusPageDialog({ page, open, onClose }: { page?: StatusPage; open: boolean; onClose(): void }) {
  return (
    <Dialog title={page ? `Edit status page ${page.title}` : 'Create status page'} open={open} onClose={onClose} wide>
      {open && <StatusPageForm key={page?.id ?? 'new'} page={page} onDone={onClose} />}
    </Dialog>
  );
}

function StatusPageForm({ page, onDone }: { page?: StatusPage; onDone(): void }) {
  const save = useSaveResource<StatusPage>(STATUS_PAGES_PATH);
  // Enough for any page (the API allows 200 services on one); sorted so a name is easy to find.
  const services = useResourceList<Service>('/services', { sort: 'name', limit: 1000 });
  const [slug, setSlug] = useState(page?.slug ?? '');
  const [title, setTitle] = useState(page?.title ?? '');
  const [description, setDescription] = useState(page?.description ?? '');
  const [customDomain, setCustomDomain] = useState(page?.custom_domain ?? '');
  const [autoIncidents, setAutoIncidents] = useState(page?.auto_incidents ?? true);
  const [access, setAccess] = useState<AccessDraft>({ access: page?.access ?? 'public', password: '', allowlist: (page?.ip_allowlist ?? []).join('\n') });
  const [shown, setShown] = useState<ServicesDraft>(() => servicesDraftOf(page?.service_ids ?? [], page?.groups ?? []));
  const errors = formErrors(save.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: StatusPageBody = {
      slug,
      title,
      description: description.trim() || null,
      access: access.access,
      ...(access.access === 'password' && access.password ? { password: access.password } : {}),
      ip_allowlist: allowlistOf(access.allowlist),
      custom_domain: customDomain.trim() || null,
      auto_incidents: autoIncidents,
      ...servicesBody(shown),
    };
    save.mutate({ id: page?.id, body }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(SHOWN_FIELDS)} />
      <div className="form-grid">
        <TextField label="Title" required value={title} onChange={(e) => setTitle(e.target.value)} error={errors.field('title')} />
        <TextField
          label="Slug"
          required
          value={slug}
          onChange={(e) => setSlug(e.target.value)}
          error={errors.field('slug')}
          hint={`The page's address: /status/${slug || 'your-slug'}`}
        />
      </div>
      <TextAreaField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} error={errors.field('description')} rows={2} />
      <AccessFields draft={access} onChange={setAccess} passwordSet={page?.password_set ?? false} errors={errors} />
      <TextField
        label="Custom domain"
        value={customDomain}
        onChange={(e) => setCustomDomain(e.target.value)}
        error={errors.field('custom_domain')}
        placeholder="status.example.com"
        hint="Optional. Point this host name at the control plane (DNS and a reverse proxy with its certificate): the page then answers at its root."
      />
      <CheckboxField
        label="Show open alerts of its services as incidents"
        checked={autoIncidents}
        onChange={(e) => setAutoIncidents(e.target.checked)}
        error={errors.field('auto_incidents')}
        hint="Off: visitors see only the incidents your team writes."
      />
      <PageServices draft={shown} onChange={setShown} services={services} errors={errors} />
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={page ? 'Save' : 'Create'} />
    </form>
  );
}
