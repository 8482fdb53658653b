// Signs the browser in with the answer of a sign-in made outside the sign-in form (accepting
// an invitation), as the form's own sign-in does: nothing cached of another person survives.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { storedSessionOf, tokenStore, type SignInAnswer } from '../../session/token-store';

export function useAdoptSession(): (answer: SignInAnswer, email: string) => void {
  const client = useQueryClient();
  return useCallback(
    (answer, email) => {
      client.clear();
      tokenStore.set(storedSessionOf(answer, email));
    },
    [client],
  );
}
