// The public status page at /status/{slug} (or "/" on the page's custom domain): no sign-in,
// no shell. Open incidents with their updates, announced maintenance, the services grouped
// into components, a subscription form, past incidents and the feeds. A password page asks
// for its password first.
import { useEffect, useSyncExternalStore } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { ApiError } from '../../api/http';
import { tokenStore } from '../../session/token-store';
import { formatDateTime } from '../../ui/format';
import { LoadError, Loading } from '../../ui/page';
import { StatusBadge } from '../../ui/status';
import { customDomainSlug } from './custom-domain';
import { usePublicPage } from './public-api';
import { Components } from './public-components';
import { History } from './public-history';
import { OpenIncidents } from './public-incidents';
import { Maintenance } from './public-maintenance';
import type { PublicStatusPage as PageData } from './public-types';
import { PasswordGate } from './password-gate';
import { SubscribeForm } from './subscribe-form';
import './public-status.css';

export default function PublicStatusPage() {
  const slug = useParams().slug ?? customDomainSlug ?? '';
  const page = usePublicPage(slug);
  const notFound = page.error instanceof ApiError && page.error.status === 404;
  const locked = page.error instanceof ApiError && page.error.code === 'PASSWORD_REQUIRED';
  const title = page.data?.title ?? (notFound ? 'Status page not found' : 'Status');
  useEffect(() => {
    document.title = title;
  }, [title]);
  useFeedLinks(page.data);

  return (
    <main className="public-status">
      {page.isPending ? (
        <Loading what="the status page" />
      ) : locked ? (
        <PasswordGate slug={slug} />
      ) : notFound ? (
        <NotFound />
      ) : page.isError ? (
        <LoadError error={page.error} retry={() => page.refetch()} />
      ) : (
        <StatusPageView page={page.data} />
      )}
    </main>
  );
}

/** Feed readers find the page's feeds from the page itself. */
function useFeedLinks(page: PageData | undefined) {
  useEffect(() => {
    if (!page) return;
    const links = [
      { href: page.links.rss, type: 'application/rss+xml' },
      { href: page.links.atom, type: 'application/atom+xml' },
    ].map(({ href, type }) => Object.assign(document.createElement('link'), { rel: 'alternate', type, href, title: page.title }));
    document.head.append(...links);
    return () => links.forEach((l) => l.remove());
  }, [page?.links.rss, page?.links.atom, page?.title]);
}

function NotFound() {
  const signedIn = useSyncExternalStore(tokenStore.subscribe, tokenStore.current) !== null;
  const location = useLocation();
  return (
    <header>
      <h1>This status page does not exist</h1>
      <p className="muted">Check the address, or ask whoever sent you the link.</p>
      {!signedIn && (
        <p className="muted">
          If it is your organization&apos;s private page,{' '}
          <Link to="/sign-in" state={{ from: location.pathname }}>
            sign in
          </Link>{' '}
          first.
        </p>
      )}
    </header>
  );
}

function StatusPageView({ page }: { page: PageData }) {
  return (
    <>
      <header>
        <h1>{page.title}</h1>
        {page.description && <p>{page.description}</p>}
      </header>
      <p className="public-overall">
        <StatusBadge status={page.overall_status} label="Overall status" />
        {page.overall_message}
      </p>
      {page.incidents.length > 0 && <OpenIncidents incidents={page.incidents} />}
      {page.maintenance.length > 0 && <Maintenance windows={page.maintenance} services={page.services} />}
      <Components services={page.services} groups={page.groups} />
      <SubscribeForm slug={page.slug} services={page.services} />
      <History slug={page.slug} />
      <footer className="public-footer">
        <p>
          Updated {formatDateTime(page.generated_at)}. Follow by <a href={page.links.rss}>RSS</a> or <a href={page.links.atom}>Atom</a>. Powered by Outpost.
        </p>
      </footer>
    </>
  );
}
