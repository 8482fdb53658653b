// "Open an incident" on an alert: tell a status page's visitors about it. The incident editor
// opens with the alert's title and service filled in, on the page chosen (at first the first
// page that shows the service).
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useResourceList } from '../../api/resources';
import type { Alert } from '../../api/types';
import { Dialog } from '../../ui/dialog';
import { SelectField } from '../../ui/field';
import { Loading, LoadError } from '../../ui/page';
import { IncidentForm } from '../status-pages/incidents/incident-form';
import type { Impact } from '../status-pages/incidents/incident-types';
import { usePageServices } from '../status-pages/status-page-api';
import { STATUS_PAGES_PATH, type StatusPage } from '../status-pages/status-page-types';

const IMPACT_OF: Record<Alert['severity'], Impact> = { critical: 'major', warning: 'minor', info: 'minor' };

export function OpenIncidentButton({ alert, serviceId }: { alert: Alert; serviceId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} aria-label={`Open an incident for ${alert.title}`}>
        Open an incident
      </button>
      <Dialog title="Open an incident" open={open} onClose={() => setOpen(false)} wide>
        {open && <IncidentFromAlert alert={alert} serviceId={serviceId} onClose={() => setOpen(false)} />}
      </Dialog>
    </>
  );
}

function IncidentFromAlert({ alert, serviceId, onClose }: { alert: Alert; serviceId: string; onClose(): void }) {
  const pages = useResourceList<StatusPage>(STATUS_PAGES_PATH);
  const [chosen, setChosen] = useState<string>();
  if (pages.isPending) return <Loading what="status pages" />;
  if (pages.isError) return <LoadError error={pages.error} retry={() => void pages.refetch()} />;
  if (pages.data.length === 0) return <p className="empty">No status page yet: create one under Status pages first.</p>;
  const page = pages.data.find((p) => p.id === chosen) ?? pages.data.find((p) => p.service_ids.includes(serviceId)) ?? pages.data[0]!;
  return (
    <>
      <SelectField label="Status page" value={page.id} onChange={(e) => setChosen(e.target.value)} hint={page.service_ids.includes(serviceId) ? undefined : `This page does not show ${alert.service_name}.`}>
        {pages.data.map((p) => (
          <option key={p.id} value={p.id}>
            {p.title}
          </option>
        ))}
      </SelectField>
      <PageIncidentForm key={page.id} page={page} alert={alert} serviceId={serviceId} onClose={onClose} />
    </>
  );
}

function PageIncidentForm({ page, alert, serviceId, onClose }: { page: StatusPage; alert: Alert; serviceId: string; onClose(): void }) {
  const services = usePageServices(page);
  const navigate = useNavigate();
  const affected = page.service_ids.includes(serviceId) ? [{ service_id: serviceId, impact: IMPACT_OF[alert.severity] }] : [];
  return (
    <IncidentForm
      pageId={page.id}
      services={services}
      initial={{ title: alert.title, affected, alertId: alert.id }}
      onCancel={onClose}
      onCreated={(incident) => navigate(`/status-pages/${page.id}/incidents/${incident.id}`)}
    />
  );
}
