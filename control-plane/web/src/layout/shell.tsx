// The frame around every signed-in page: the organization switcher, the navigation (the
// current page marked with aria-current), the live connection state and sign out.
import { useState, type ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { useLiveState } from '../live/live';
import { useSession } from '../session/session';

const NAVIGATION: { group: string; links: { to: string; label: string }[] }[] = [
  {
    group: 'Monitor',
    links: [
      { to: '/services', label: 'Services' },
      { to: '/alerts', label: 'Alerts' },
      { to: '/heartbeats', label: 'Heartbeats' },
      { to: '/certificates', label: 'SSL certificates' },
      { to: '/agents', label: 'Agents' },
      { to: '/locations', label: 'Locations' },
      { to: '/reports', label: 'Reports' },
    ],
  },
  {
    group: 'Respond',
    links: [
      { to: '/alert-rules', label: 'Alert rules' },
      { to: '/channels', label: 'Notification channels' },
      { to: '/escalation-policies', label: 'Escalation policies' },
      { to: '/maintenance', label: 'Maintenance windows' },
      { to: '/silences', label: 'Silences' },
      { to: '/status-pages', label: 'Status pages' },
    ],
  },
  {
    group: 'Settings',
    links: [
      { to: '/members', label: 'Members' },
      { to: '/teams', label: 'Teams' },
      { to: '/api-keys', label: 'API keys' },
      { to: '/audit-log', label: 'Audit log' },
      { to: '/secrets', label: 'Secrets' },
      { to: '/organization', label: 'Organization' },
      { to: '/sso', label: 'SSO' },
      { to: '/profile', label: 'Profile' },
      { to: '/security', label: 'Security' },
      { to: '/sessions', label: 'Sessions' },
    ],
  },
];

const LIVE_TEXT = { connecting: 'Connecting…', live: 'Live', disconnected: 'Disconnected, reconnecting…' } as const;

export function Shell({ children }: { children: ReactNode }) {
  const { session, organization, organizations, role, signOut, switchOrganization } = useSession();
  const live = useLiveState();
  const navigate = useNavigate();
  const [switchError, setSwitchError] = useState<string>();

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/services" className="brand">
          Outpost
        </NavLink>
        <div className="org-switcher">
          <label htmlFor="organization-switcher">Organization</label>
          <select
            id="organization-switcher"
            value={session?.organizationId ?? ''}
            onChange={async (e) => {
              setSwitchError(undefined);
              try {
                await switchOrganization(e.target.value);
                navigate('/services');
              } catch (err) {
                setSwitchError(err instanceof Error ? err.message : String(err));
              }
            }}
          >
            {organizations.length === 0 && organization && <option value={organization.id}>{organization.name}</option>}
            {organizations.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name} ({o.role})
              </option>
            ))}
          </select>
          {switchError && (
            <span className="field-error" role="alert">
              {switchError}
            </span>
          )}
        </div>
        <p className={`live-state live-${live}`} role="status" aria-live="polite">
          <span className="status-dot" aria-hidden="true" />
          {LIVE_TEXT[live]}
        </p>
        <div className="user-menu">
          <span className="muted">
            {session?.email}
            {role && ` · ${role}`}
          </span>
          <button
            type="button"
            onClick={() => {
              signOut();
              navigate('/sign-in');
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidebar" aria-label="Main">
        {NAVIGATION.map((section) => (
          <div key={section.group} className="nav-group">
            <p className="nav-group-title">{section.group}</p>
            <ul>
              {section.links.map((link) => (
                <li key={link.to}>
                  <NavLink to={link.to}>{link.label}</NavLink>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
