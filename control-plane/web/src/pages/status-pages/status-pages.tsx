// Status pages of the organization: who may see each, how many services it shows, and its
// public link. A page's own view holds its incidents and subscribers; members and above
// create, edit and delete pages.
import { useState } from 'react';
import { Link } from 'react-router';
import { useDeleteResource, useResourceList } from '../../api/resources';
import { useSession } from '../../session/session';
import { ListTable } from '../../ui/list-table';
import { CreateButton, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import { StatusPageDialog } from './status-page-form';
import { ACCESS_TEXT, STATUS_PAGES_PATH, type StatusPage } from './status-page-types';
import './status-pages.css';

type Editing = { page?: StatusPage } | null;

export default function StatusPagesPage() {
  const { canWrite } = useSession();
  const pages = useResourceList<StatusPage>(STATUS_PAGES_PATH);
  const remove = useDeleteResource(STATUS_PAGES_PATH);
  const [editing, setEditing] = useState<Editing>(null);

  return (
    <Page title="Status pages" actions={canWrite && <CreateButton onClick={() => setEditing({})}>Create status page</CreateButton>}>
      <QueryState query={pages} what="status pages" empty="No status pages yet.">
        {(data) => (
          <ListTable columns={['Title', 'Slug', 'Services', 'Who may see it', 'Public page']} actions={canWrite}>
            {data.map((page) => (
              <tr key={page.id}>
                <td>
                  <Link to={`/status-pages/${page.id}`}>{page.title}</Link>
                </td>
                <td>
                  <code>{page.slug}</code>
                </td>
                <td>{page.service_ids.length}</td>
                <td>{ACCESS_TEXT[page.access]}</td>
                <td>
                  <Link to={page.page_url} target="_blank">
                    {page.page_url}
                  </Link>
                  {page.custom_domain && <div className="muted">{page.custom_domain}</div>}
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
      <StatusPageDialog page={editing?.page} open={editing !== null} onClose={() => setEditing(null)} />
    </Page>
  );
}
