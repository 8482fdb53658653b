// Uptime reports for any range of days (up to 400): per service its uptime, checks, failures,
// downtime, mean and p95 response time and incidents, as a table and as CSV to hand on; and
// the organization's monthly report e-mail.
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, apiDownload } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useResourceList } from '../../api/resources';
import type { Service } from '../../api/types';
import { useOrg } from '../../session/session';
import { DownloadButton } from '../../ui/download-button';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems, Loading, Page } from '../../ui/page';
import { filterQuery, ReportFilterFields, type ReportFilter } from './report-filter';
import { PRESETS, rangeQuery, type DayRange } from './report-range';
import { ReportSettingsCard } from './report-settings';
import { ReportTable, type UptimeReport } from './report-table';
import './reports.css';

interface ReportRequest {
  range: DayRange;
  filter: ReportFilter;
}

export default function ReportsPage() {
  const org = useOrg();
  const services = useResourceList<Service>('/services', { sort: 'name', limit: 1000 });
  const [draft, setDraft] = useState<ReportRequest>(() => ({ range: PRESETS[0]!.range(new Date()), filter: { by: 'all' } }));
  const [shown, setShown] = useState<ReportRequest>(draft);
  const query = { ...rangeQuery(shown.range), ...filterQuery(shown.filter) };
  const report = useQuery({
    queryKey: [...queryKeys.resource(org, '/reports/uptime'), shown],
    queryFn: () => api.get<UptimeReport>('/reports/uptime', query),
  });
  const errors = formErrors(report.error);
  const setRange = (range: Partial<DayRange>) => setDraft({ ...draft, range: { ...draft.range, ...range } });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShown(draft);
  };

  return (
    <Page title="Reports">
      <form className="card" onSubmit={submit} noValidate aria-label="Report range and services">
        <div className="report-presets" role="group" aria-label="Ranges">
          {PRESETS.map((preset) => (
            <button key={preset.label} type="button" onClick={() => {
              const next = { ...draft, range: preset.range(new Date()) };
              setDraft(next);
              setShown(next);
            }}>
              {preset.label}
            </button>
          ))}
        </div>
        <div className="form-grid">
          <TextField label="From" type="date" value={draft.range.from} onChange={(e) => setRange({ from: e.target.value })} error={errors.field('from')} hint="Days in UTC, both included." />
          <TextField label="To" type="date" value={draft.range.to} onChange={(e) => setRange({ to: e.target.value })} error={errors.field('to')} />
        </div>
        <ReportFilterFields
          filter={draft.filter}
          onChange={(filter) => setDraft({ ...draft, filter })}
          services={services.data ?? []}
          error={errors.field('service_ids') ?? errors.field('tags')}
        />
        <div className="actions">
          <button type="submit" className="primary">
            Show report
          </button>
        </div>
      </form>
      <section className="card" aria-labelledby="report-title">
        <header className="section-header">
          <h2 id="report-title">
            Uptime from {shown.range.from} to {shown.range.to}
          </h2>
          <div className="row-actions">
            <DownloadButton
              label="Download CSV"
              disabled={!report.isSuccess}
              download={() => apiDownload('/reports/uptime', { query: { ...query, format: 'csv' }, filename: `uptime-${shown.range.from}-to-${shown.range.to}.csv` })}
            />
          </div>
        </header>
        {report.isPending ? <Loading what="the report" /> : report.isError ? <FormProblems messages={errors.summary(['from', 'to', 'service_ids', 'tags'])} /> : <ReportTable report={report.data} />}
      </section>
      <ReportSettingsCard />
    </Page>
  );
}
