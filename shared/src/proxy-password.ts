// A proxy option's password (`http://user:pass@host:port`): what the control plane seals and
// masks inside the URL, and what the CLI's outpost.yaml may hold as a reference.

/** The password of a proxy URL, and the URL with another one in its place; null without one. */
export function proxyPassword(url: string): { password: string; with(password: string): string } | null {
  const match = /^(https?:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (!match) return null;
  const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
  // The last @ ends the user information (WHATWG URL); its first colon starts the password.
  const at = authority.lastIndexOf('@');
  const colon = authority.indexOf(':');
  if (at < 0 || colon < 0 || colon > at || colon === at - 1) return null;
  return { password: authority.slice(colon + 1, at), with: (password) => `${scheme}${authority.slice(0, colon + 1)}${password}${authority.slice(at)}${rest}` };
}
