// The signed-in person's second factors (authenticator app, recovery codes, passkeys) and,
// for admins, the organization's rule that members have one.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useOrg, useSession } from '../../session/session';
import { LoadError, Loading, Page } from '../../ui/page';
import { OrganizationPolicy } from './organization-policy';
import { PasskeysSection } from './passkeys-section';
import type { SecondFactorsJson } from './security-types';
import { TotpSection } from './totp-section';
import './security.css';

export default function SecurityPage() {
  const org = useOrg();
  const { canManage } = useSession();
  const client = useQueryClient();
  const key = queryKeys.resource(org, '/profile/mfa');
  const factors = useQuery({ queryKey: key, queryFn: () => api.get<SecondFactorsJson>('/profile/mfa') });
  const changed = () => void client.invalidateQueries({ queryKey: key });

  return (
    <Page title="Security">
      {factors.isPending ? (
        <Loading what="your second factors" />
      ) : factors.isError ? (
        <LoadError error={factors.error} retry={() => void factors.refetch()} />
      ) : (
        <>
          <TotpSection factors={factors.data} changed={changed} />
          <PasskeysSection factors={factors.data} changed={changed} />
        </>
      )}
      {canManage && <OrganizationPolicy />}
    </Page>
  );
}
