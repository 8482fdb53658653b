import { Migration } from '@mikro-orm/migrations';

/**
 * Single sign-on with OpenID Connect (issue 43). An organization's provider settings (the
 * client secret sealed), the e-mail domains it claims (each by one organization, so that a
 * sign-in by e-mail finds one provider), the identities (issuer, subject) linked to users,
 * the sign-ins under way (state and PKCE verifier kept here, bound to the browser by a
 * cookie, used once) and the one-time codes that hand a finished sign-in to the dashboard.
 * State, browser key and codes are kept as sha256 digests.
 * Tables touched: new tables only.
 */
export class Migration0028SingleSignOn extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table sso_settings (
        organization_id uuid primary key references organizations (id) on delete cascade,
        issuer text not null,
        client_id text not null,
        client_secret_sealed text not null,
        groups_claim text not null default 'groups',
        -- [{group, role}]: a person's role is the highest of their groups' roles.
        role_mapping jsonb not null default '[]',
        -- The role of people in no mapped group; null: they are not let in.
        default_role text,
        required boolean not null default false,
        enabled boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint sso_settings_default_role_check check (default_role in ('admin', 'member', 'viewer'))
      );

      create table sso_domains (
        domain text primary key,
        organization_id uuid not null references sso_settings (organization_id) on delete cascade
      );
      create index sso_domains_organization_idx on sso_domains (organization_id);

      create table user_identities (
        issuer text not null,
        subject text not null,
        user_id uuid not null references users (id) on delete cascade,
        -- The address the provider last gave, for people reading the table.
        email text,
        created_at timestamptz not null default now(),
        last_sign_in_at timestamptz not null default now(),
        primary key (issuer, subject)
      );
      create index user_identities_user_idx on user_identities (user_id);

      create table sso_logins (
        state_hash text primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        browser_hash text not null,
        nonce text not null,
        code_verifier_sealed text not null,
        redirect text not null,
        expires_at timestamptz not null
      );
      create index sso_logins_expires_idx on sso_logins (expires_at);

      create table sso_exchange_codes (
        code_hash text primary key,
        user_id uuid not null references users (id) on delete cascade,
        organization_id uuid not null references organizations (id) on delete cascade,
        redirect text not null,
        expires_at timestamptz not null
      );
      create index sso_exchange_codes_expires_idx on sso_exchange_codes (expires_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table sso_exchange_codes; drop table sso_logins; drop table user_identities; drop table sso_domains; drop table sso_settings;');
  }
}
