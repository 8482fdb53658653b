// Alerts by status, with who acknowledged or resolved each one and where it was delivered.
// The feed invalidates every query under `queryKeys.alerts(org)`, so a new alert appears here
// as it fires.
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useResourceList } from '../../api/resources';
import type { Alert, Member } from '../../api/types';
import { useOrg } from '../../session/session';
import { Empty, LoadError, Loading, Page } from '../../ui/page';
import { AlertCard } from './alert-card';
import { STATUS_TABS, StatusTabs, type StatusTab } from './status-tabs';
import './alerts.css';

const LIMIT = 200;

export default function AlertsPage() {
  const [params, setParams] = useSearchParams();
  const requested = params.get('status');
  const tab: StatusTab = STATUS_TABS.find((t) => t.value === requested) ?? STATUS_TABS[0]!;
  const org = useOrg();
  const alerts = useQuery({
    queryKey: [...queryKeys.alerts(org), 'list', tab.value],
    queryFn: () => api.get<Alert[]>('/alerts', { status: tab.value, limit: LIMIT }),
  });
  const members = useResourceList<Member>('/members');
  const people = new Map((members.data ?? []).map((m) => [m.user_id, m.full_name ? `${m.full_name} (${m.email})` : m.email]));

  return (
    <Page title="Alerts">
      <StatusTabs current={tab} onChange={(next) => setParams(next.value === STATUS_TABS[0]!.value ? {} : { status: next.value }, { replace: true })} />
      <div role="tabpanel" id="alerts-panel" aria-labelledby={`alerts-tab-${tab.value}`} tabIndex={0} className="alerts-panel">
        {alerts.isPending ? (
          <Loading what="alerts" />
        ) : alerts.isError ? (
          <LoadError error={alerts.error} retry={() => void alerts.refetch()} />
        ) : alerts.data.length === 0 ? (
          <Empty>{tab.empty}</Empty>
        ) : (
          <>
            <p className="muted" role="status">
              {alerts.data.length === LIMIT ? `The ${LIMIT} most recent ${tab.noun}s` : `${alerts.data.length} ${tab.noun}${alerts.data.length === 1 ? '' : 's'}`}
            </p>
            <ul className="alert-list">
              {alerts.data.map((alert) => (
                <li key={alert.id}>
                  <AlertCard alert={alert} personName={(id) => people.get(id) ?? (members.isSuccess ? 'a former member' : 'a member')} />
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </Page>
  );
}
