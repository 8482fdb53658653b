import { Migration } from '@mikro-orm/migrations';

/**
 * Second factors (issue 43): a TOTP secret per user (sealed; pending until confirmed with a
 * code; the last step used, so no code works twice), ten recovery codes (sha256, each used
 * once), passkeys (WebAuthn credentials, several per user, named), the single-use WebAuthn
 * challenges and the tokens between a password and its second factor (both sha256, short
 * lived), and an organization's rule that its members have a second factor.
 * Tables touched: organizations gains a column with a constant default (no rewrite, no scan).
 */
export class Migration0027SecondFactors extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- An id of its own, as the other tables of sealed values have: re-sealing finds rows by it.
      create table user_totp (
        id uuid primary key,
        user_id uuid not null unique references users (id) on delete cascade,
        secret_sealed text not null,
        -- Null while enrolment waits for its first code.
        confirmed_at timestamptz,
        -- The time step (unix seconds / 30) of the last code accepted.
        last_used_step bigint,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );

      create table user_recovery_codes (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        code_hash text not null,
        used_at timestamptz,
        created_at timestamptz not null default now()
      );
      create index user_recovery_codes_user_idx on user_recovery_codes (user_id);
      create unique index user_recovery_codes_hash_key on user_recovery_codes (user_id, code_hash);

      create table passkeys (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        name text not null,
        -- base64url, as the authenticator names it.
        credential_id text not null,
        -- COSE public key, base64url.
        public_key text not null,
        sign_count bigint not null default 0,
        transports jsonb not null default '[]',
        -- The relying party (host name) it was made for: assertions are checked against it.
        rp_id text not null,
        backed_up boolean not null default false,
        created_at timestamptz not null default now(),
        last_used_at timestamptz
      );
      create unique index passkeys_credential_key on passkeys (credential_id);
      create index passkeys_user_idx on passkeys (user_id, created_at);

      create table webauthn_challenges (
        challenge_hash text primary key,
        -- 'register', 'sign_in', 'second_factor' or 'proof'.
        purpose text not null,
        user_id uuid references users (id) on delete cascade,
        rp_id text not null,
        origin text not null,
        expires_at timestamptz not null
      );
      create index webauthn_challenges_expiry_idx on webauthn_challenges (expires_at);

      create table mfa_tokens (
        token_hash text primary key,
        user_id uuid not null references users (id) on delete cascade,
        organization_id uuid not null references organizations (id) on delete cascade,
        -- The user has no factor yet and the organization requires one: enrol TOTP first.
        enrollment_required boolean not null default false,
        failed_attempts integer not null default 0,
        expires_at timestamptz not null,
        created_at timestamptz not null default now()
      );
      create index mfa_tokens_expiry_idx on mfa_tokens (expires_at);

      alter table organizations add column require_mfa boolean not null default false;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table organizations drop column require_mfa;
      drop table mfa_tokens;
      drop table webauthn_challenges;
      drop table passkeys;
      drop table user_recovery_codes;
      drop table user_totp;
    `);
  }
}
