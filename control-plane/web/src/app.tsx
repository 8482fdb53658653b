// Routes: the public pages (sign in, create account, public status pages) and, behind the
// session, the shell with every other page. Pages load on demand to keep the first load small.
import { lazy, Suspense, useSyncExternalStore, type ComponentType, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { Shell } from './layout/shell';
import { ErrorBoundary } from './ui/error-boundary';
import { LiveProvider } from './live/live';
import { tokenStore } from './session/token-store';
import { Loading } from './ui/page';
import { customDomainSlug } from './pages/public-status/custom-domain';

const page = (load: () => Promise<{ default: ComponentType }>) => {
  const Component = lazy(load);
  return <Component />;
};

const SignIn = page(() => import('./pages/auth/sign-in'));
const CreateAccount = page(() => import('./pages/auth/create-account'));
const AcceptInvitation = page(() => import('./pages/auth/accept-invitation'));
const ForgotPassword = page(() => import('./pages/auth/forgot-password'));
const ResetPassword = page(() => import('./pages/auth/reset-password'));
const SsoLanding = page(() => import('./pages/sso/sso-landing'));
const PublicStatus = page(() => import('./pages/public-status/public-status'));

const SIGNED_IN_ROUTES: [string, ReactNode][] = [
  ['/services', page(() => import('./pages/services/overview'))],
  ['/services/new', page(() => import('./pages/services/create'))],
  ['/services/:id', page(() => import('./pages/services/detail'))],
  ['/services/:id/edit', page(() => import('./pages/services/edit'))],
  ['/alerts', page(() => import('./pages/alerts/alerts'))],
  ['/alert-rules', page(() => import('./pages/alert-rules/alert-rules'))],
  ['/channels', page(() => import('./pages/channels/channels'))],
  ['/escalation-policies', page(() => import('./pages/escalation/escalation-policies'))],
  ['/maintenance', page(() => import('./pages/maintenance/maintenance'))],
  ['/silences', page(() => import('./pages/silences/silences'))],
  ['/heartbeats', page(() => import('./pages/heartbeats/heartbeats'))],
  ['/agents', page(() => import('./pages/agents/agents'))],
  ['/locations', page(() => import('./pages/locations/locations'))],
  ['/locations/:name', page(() => import('./pages/locations/location'))],
  ['/status-pages', page(() => import('./pages/status-pages/status-pages'))],
  ['/status-pages/:id', page(() => import('./pages/status-pages/status-page-detail'))],
  ['/status-pages/:id/incidents/:incidentId', page(() => import('./pages/status-pages/incidents/incident-page'))],
  ['/reports', page(() => import('./pages/reports/reports'))],
  ['/certificates', page(() => import('./pages/certificates/certificates'))],
  ['/teams', page(() => import('./pages/teams/teams'))],
  ['/members', page(() => import('./pages/members/members'))],
  ['/api-keys', page(() => import('./pages/api-keys/api-keys'))],
  ['/audit-log', page(() => import('./pages/audit-log/audit-log'))],
  ['/secrets', page(() => import('./pages/secrets/secrets'))],
  ['/organization', page(() => import('./pages/organization/organization'))],
  ['/sso', page(() => import('./pages/sso/sso-settings'))],
  ['/profile', page(() => import('./pages/profile/profile'))],
  ['/security', page(() => import('./pages/security/security'))],
  ['/sessions', page(() => import('./pages/sessions/sessions'))],
];

function RequireSession({ children }: { children: ReactNode }) {
  const session = useSyncExternalStore(tokenStore.subscribe, tokenStore.current);
  const location = useLocation();
  if (!session) return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
  return <>{children}</>;
}

const loading = <Loading what="the page" />;

export function App() {
  return (
    <Routes>
      <Route path="/sign-in" element={<Suspense fallback={loading}>{SignIn}</Suspense>} />
      <Route path="/create-account" element={<Suspense fallback={loading}>{CreateAccount}</Suspense>} />
      <Route path="/accept-invitation" element={<Suspense fallback={loading}>{AcceptInvitation}</Suspense>} />
      <Route path="/forgot-password" element={<Suspense fallback={loading}>{ForgotPassword}</Suspense>} />
      <Route path="/reset-password" element={<Suspense fallback={loading}>{ResetPassword}</Suspense>} />
      <Route path="/sign-in/sso" element={<Suspense fallback={loading}>{SsoLanding}</Suspense>} />
      <Route path="/status/:slug" element={<Suspense fallback={loading}>{PublicStatus}</Suspense>} />
      {customDomainSlug && <Route path="/" element={<Suspense fallback={loading}>{PublicStatus}</Suspense>} />}
      <Route
        path="*"
        element={
          <RequireSession>
            <LiveProvider>
              <Shell>
                <PageBoundary>
                  <Suspense fallback={loading}>
                    <Routes>
                      <Route path="/" element={<Navigate to="/services" replace />} />
                      {SIGNED_IN_ROUTES.map(([path, element]) => (
                        <Route key={path} path={path} element={element} />
                      ))}
                      <Route path="*" element={<NotFound />} />
                    </Routes>
                  </Suspense>
                </PageBoundary>
              </Shell>
            </LiveProvider>
          </RequireSession>
        }
      />
    </Routes>
  );
}

function PageBoundary({ children }: { children: ReactNode }) {
  return <ErrorBoundary resetKey={useLocation().pathname}>{children}</ErrorBoundary>;
}

function NotFound() {
  return (
    <section className="page">
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
    </section>
  );
}
