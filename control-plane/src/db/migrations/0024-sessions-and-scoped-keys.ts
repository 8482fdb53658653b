import { Migration } from '@mikro-orm/migrations';

/**
 * Sessions and scoped keys (issue 43). Every sign-in is a `sessions` row that its tokens name
 * (the `sid` claim); a request is served only while that row is alive, so ending it (one
 * session, every session of a user, a password change or reset) ends the tokens at once on
 * every replica. A session lives 30 days past its last refresh; its refresh token is stored
 * as a sha256, the one before it kept to recognise a stolen token used twice.
 * `users.tokens_valid_after` ends tokens that name no session (issued before this version,
 * or minted by hand with the secret) when a user signs out everywhere.
 * API keys gain optional scopes within their role and an optional expiry.
 */
export class Migration0024SessionsAndScopedKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table sessions (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        organization_id uuid not null references organizations (id) on delete cascade,
        method text not null,
        user_agent text,
        address text,
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now(),
        expires_at timestamptz not null,
        ended_at timestamptz,
        refresh_hash text not null,
        previous_refresh_hash text
      );
      create index sessions_user_idx on sessions (user_id, created_at desc);
      create unique index sessions_refresh_idx on sessions (refresh_hash);
      alter table users add column tokens_valid_after timestamptz;
      alter table api_keys add column scopes text[], add column expires_at timestamptz;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table sessions;
      alter table users drop column tokens_valid_after;
      alter table api_keys drop column scopes, drop column expires_at;
    `);
  }
}
