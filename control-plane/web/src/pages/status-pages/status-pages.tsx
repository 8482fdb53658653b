// Status pages of the organization: which services each shows, whether it is public, and a
// link to the public page. Members and above create, edit and delete them.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import type { Service } from '../../api/types';
import { useSession } from '../../session/session';
import { Dialog } from '../../ui/dialog';
import { CheckboxField, TextAreaField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, LoadError, Loading, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import './status-pages.css';
import { FormActions } from '../../ui/form-actions';

interface StatusPage {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  public: boolean;
  service_ids: string[];
}

type Editing = { page?: StatusPage } | null;

export default function StatusPagesPage() {
  const { canWrite } = useSession();
  const pages = useResourceList<StatusPage>('/status-pages');
  const remove = useDeleteResource('/status-pages');
  const [editing, setEditing] = useState<Editing>(null);

  return (
    <Page
      title="Status pages"
      actions={canWrite && <CreateButton onClick={() => setEditing({})}>Create status page</CreateButton>}
    >
      <QueryState query={pages} what="status pages" empty="No status pages yet.">
        {(data) => (
          <ListTable columns={['Title', 'Slug', 'Services', 'Public', 'Public page']} actions={canWrite}>
            {data.map((page) => (
              <tr key={page.id}>
                <td>{page.title}</td>
                <td>
                  <code>{page.slug}</code>
                </td>
                <td>{page.service_ids.length}</td>
                <td>{page.public ? 'yes' : 'no'}</td>
                <td>
                  {page.public ? (
                    <Link to={`/status/${page.slug}`} target="_blank">
                      /status/{page.slug}
                    </Link>
                  ) : (
                    <span className="muted">not published</span>
                  )}
                </td>
                {canWrite && (
                  <td>
                    <EditDeleteActions name={`status page ${page.title}`} what={`status page "${page.title}"`} onEdit={() => setEditing({ page })} onDelete={() => remove.mutateAsync(page.id)} />
                  </td>
                )}
              </tr>
            ))}
          </ListTable>
        )}
      </QueryState>
      <StatusPageDialog editing={editing} onClose={() => setEditing(null)} />
    </Page>
  );
}

function StatusPageDialog({ editing, onClose }: { editing: Editing; onClose(): void }) {
  const title = editing?.page ? `Edit status page ${editing.page.title}` : 'Create status page';
  return (
    <Dialog title={title} open={editing !== null} onClose={onClose} wide>
      {editing && <StatusPageForm key={editing.page?.id ?? 'new'} page={editing.page} onDone={onClose} />}
    </Dialog>
  );
}

function StatusPageForm({ page, onDone }: { page?: StatusPage; onDone(): void }) {
  const save = useSaveResource<StatusPage>('/status-pages');
  // Enough for any page (the API allows 200 services on one); sorted so a name is easy to find.
  const services = useResourceList<Service>('/services', { sort: 'name', limit: 1000 });
  const [slug, setSlug] = useState(page?.slug ?? '');
  const [title, setTitle] = useState(page?.title ?? '');
  const [description, setDescription] = useState(page?.description ?? '');
  const [isPublic, setPublic] = useState(page?.public ?? true);
  const [serviceIds, setServiceIds] = useState<string[]>(page?.service_ids ?? []);
  const errors = formErrors(save.error);

  const toggle = (id: string, on: boolean) => setServiceIds((ids) => (on ? [...ids, id] : ids.filter((i) => i !== id)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = { slug, title, description: description.trim() || null, public: isPublic, service_ids: serviceIds };
    save.mutate({ id: page?.id, body }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['slug', 'title', 'description', 'public', 'service_ids'])} />
      <div className="form-grid">
        <TextField label="Title" required value={title} onChange={(e) => setTitle(e.target.value)} error={errors.field('title')} />
        <TextField
          label="Slug"
          required
          value={slug}
          onChange={(e) => setSlug(e.target.value)}
          error={errors.field('slug')}
          hint={`The public address: /status/${slug || 'your-slug'}`}
        />
      </div>
      <TextAreaField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} error={errors.field('description')} />
      <CheckboxField
        label="Public (anyone with the link can see it, without signing in)"
        checked={isPublic}
        onChange={(e) => setPublic(e.target.checked)}
        error={errors.field('public')}
      />
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
          <div className="service-choices">
            {services.data.map((service) => (
              <CheckboxField key={service.id} label={service.name} checked={serviceIds.includes(service.id)} onChange={(e) => toggle(service.id, e.target.checked)} />
            ))}
          </div>
        )}
      </fieldset>
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={page ? 'Save' : 'Create'} />
    </form>
  );
}
