// Which notification channel config keys are secrets, and how the API shows them: stored
// sealed, answered with only their last 4 characters. Shared by the control plane and the CLI,
// which compares a secret from the environment with what the API shows.
export const SECRET_CONFIG_KEYS = ['integration_key', 'secret'] as const;

export function maskSecret(value: string): string {
  return value.length <= 4 ? '****' : `****${value.slice(-4)}`;
}
