// The audit log: who changed what and when, newest first, filtered, loaded a page at a time,
// each row opening to its changes; a CSV download of what the filters match; the retention.
// Admins and owners only (the API refuses the log to others).
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, apiDownload, type Query } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useOrg, useSession } from '../../session/session';
import { DownloadButton } from '../../ui/download-button';
import { formErrors } from '../../ui/form-errors';
import { localInputToIso } from '../../ui/local-time';
import { Empty, FormProblems, Loading, Page } from '../../ui/page';
import { AuditFilterForm } from './audit-filter-form';
import { AuditSettingsCard } from './audit-settings';
import { AuditTable } from './audit-table';
import { NO_FILTER, type AuditFilter, type AuditLogPage } from './audit-types';
import './audit-log.css';

const PAGE_SIZE = 50;
const FILTER_FIELDS = ['actor', 'resource', 'resource_id', 'action', 'from', 'to'];

const queryOf = (f: AuditFilter): Query => ({ ...f, actor: f.actor.trim(), from: localInputToIso(f.from), to: localInputToIso(f.to) });

export default function AuditLogPage() {
  const { canManage, role } = useSession();
  return (
    <Page title="Audit log">
      <p className="muted">
        Every change of configuration and access made in this organization, every sign-in and failed sign-in: when, who, from which address, and the fields
        changed. Secrets are never kept.
      </p>
      {canManage ? (
        <>
          <AuditEntries />
          <AuditSettingsCard />
        </>
      ) : (
        role && <p className="notice">Only admins and owners can read the audit log.</p>
      )}
    </Page>
  );
}

function AuditEntries() {
  const org = useOrg();
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const query = queryOf(filter);
  const log = useInfiniteQuery({
    queryKey: [...queryKeys.resource(org, '/audit-log'), filter],
    queryFn: ({ pageParam }) => api.get<AuditLogPage>('/audit-log', { ...query, limit: PAGE_SIZE, before: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_before ?? undefined,
  });
  const errors = formErrors(log.error);
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <>
      <AuditFilterForm applied={filter} onApply={setFilter} errors={errors} />
      <section className="card" aria-labelledby="audit-entries-title">
        <header className="section-header">
          <h2 id="audit-entries-title">Entries</h2>
          <div className="row-actions">
            <DownloadButton label="Download CSV" disabled={!log.isSuccess} download={() => apiDownload('/audit-log', { query: { ...query, format: 'csv' }, filename: 'audit-log.csv' })} />
          </div>
        </header>
        {log.isPending ? (
          <Loading what="the audit log" />
        ) : log.isError ? (
          <FormProblems messages={errors.summary(FILTER_FIELDS)} />
        ) : entries.length === 0 ? (
          <Empty>No entry matches.</Empty>
        ) : (
          <>
            <AuditTable entries={entries} />
            {log.hasNextPage && (
              <div className="audit-more">
                <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
                  {log.isFetchingNextPage ? 'Loading…' : 'Load more'}
                </button>
              </div>
            )}
          </>
        )}
      </section>
    </>
  );
}
