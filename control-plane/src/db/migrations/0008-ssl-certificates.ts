import { Migration } from '@mikro-orm/migrations';

export class Migration0008SslCertificates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- A certificate watch is a monitored service (status, results and alerts live there)
      -- checked by the TLS_CERTIFICATE prober; the certificate facts are read from its latest
      -- result, so nothing here changes at ingest.
      create table ssl_certificates (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        service_id uuid not null unique references services (id) on delete cascade,
        hostname text not null,
        port integer not null check (port between 1 and 65535),
        warn_days integer not null check (warn_days between 1 and 365),
        location text not null,
        ca_certificate text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index ssl_certificates_organization_idx on ssl_certificates (organization_id, created_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table ssl_certificates;');
  }
}
