import { Migration } from '@mikro-orm/migrations';

/**
 * Invitations and password resets by e-mail (issue 43). Both are links with a random token
 * kept only as its sha256. An invitation names an organization, an e-mail address and a role,
 * lasts 7 days and is used once; an organization holds at most one open (neither accepted nor
 * revoked) invitation per address, which a new invitation replaces. A password reset lasts an
 * hour; using one ends every other reset of its user. New tables only: nothing large is touched.
 */
export class Migration0026InvitationsAndResets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table invitations (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        email text not null,
        role text not null,
        token_hash text not null,
        invited_by uuid references users (id) on delete set null,
        -- Whether the mail went out; when not, the inviter was handed the link instead.
        email_sent boolean not null default false,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        accepted_at timestamptz,
        accepted_by uuid references users (id) on delete set null,
        revoked_at timestamptz,
        constraint invitations_role_check check (role in ('owner', 'admin', 'member', 'viewer'))
      );
      create unique index invitations_token_key on invitations (token_hash);
      create unique index invitations_open_key on invitations (organization_id, email) where accepted_at is null and revoked_at is null;
      create index invitations_organization_idx on invitations (organization_id, created_at desc);

      create table password_resets (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        token_hash text not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        used_at timestamptz
      );
      create unique index password_resets_token_key on password_resets (token_hash);
      create index password_resets_user_idx on password_resets (user_id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table password_resets; drop table invitations;');
  }
}
