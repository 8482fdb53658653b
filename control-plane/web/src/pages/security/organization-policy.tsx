// The organization's rule, for its admins: every member signs in with a second factor. Members
// without one set up an authenticator app at their next sign-in; SSO sign-ins count as the
// identity provider's factor.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useOrg } from '../../session/session';
import { CheckboxField } from '../../ui/field';
import { FormProblems, LoadError, Loading } from '../../ui/page';
import type { OrganizationSecurityJson } from './security-types';

export function OrganizationPolicy() {
  const org = useOrg();
  const client = useQueryClient();
  const key = queryKeys.resource(org, '/organization/security');
  const policy = useQuery({ queryKey: key, queryFn: () => api.get<OrganizationSecurityJson>('/organization/security') });
  // The box shows the choice at once (the query's optimistic update lands a tick later, which a
  // controlled checkbox would show as a flicker back); a refusal puts back what the server holds.
  const [chosen, setChosen] = useState<boolean | undefined>();
  const save = useMutation({
    mutationFn: (requireMfa: boolean) => api.put<OrganizationSecurityJson>('/organization/security', { require_mfa: requireMfa }),
    onMutate: (requireMfa) => client.setQueryData(key, { require_mfa: requireMfa }),
    onSuccess: (saved) => client.setQueryData(key, saved),
    onError: () => void client.invalidateQueries({ queryKey: key }),
  });

  return (
    <section className="card" aria-labelledby="organization-policy-title">
      <h2 id="organization-policy-title">Organization</h2>
      {policy.isPending ? (
        <Loading what="the organization's rules" />
      ) : policy.isError ? (
        <LoadError error={policy.error} retry={() => void policy.refetch()} />
      ) : (
        <>
          {save.error && <FormProblems messages={[save.error.message]} />}
          <CheckboxField
            label="Require a second factor of every member"
            checked={chosen ?? policy.data.require_mfa}
            disabled={save.isPending}
            onChange={(e) => {
              setChosen(e.target.checked);
              save.mutate(e.target.checked, { onSettled: () => setChosen(undefined) });
            }}
            hint="Members without one set up an authenticator app at their next sign-in with a password. Single sign-on counts as the identity provider's second factor."
          />
          {save.isSuccess && (
            <p className="muted" role="status">
              Saved.
            </p>
          )}
        </>
      )}
    </section>
  );
}
