// Which notification channel config keys are secrets, and how the API shows them: stored
// sealed, answered with only their last 4 characters. Shared by the control plane and the CLI,
// which compares a secret from the environment with what the API shows. Pushover's `user` key
// is one: with the application token it is enough to send messages to that person.
export const SECRET_CONFIG_KEYS = ['integration_key', 'secret', 'api_key', 'bot_token', 'token', 'user'] as const;

export function maskSecret(value: string): string {
  return value.length <= 4 ? '****' : `****${value.slice(-4)}`;
}
