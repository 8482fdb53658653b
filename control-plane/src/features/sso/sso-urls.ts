// The addresses of single sign-on, from PUBLIC_URL: the callback is the redirect URI an admin
// registers at the provider, so it must not depend on how a request happened to arrive.
export interface SsoUrls {
  callback(slug: string): string;
  start(slug: string): string;
}

export function ssoUrls(publicUrl: string): SsoUrls {
  const base = `${publicUrl.replace(/\/+$/, '')}/api/v1/auth/sso`;
  return {
    callback: (slug) => `${base}/${encodeURIComponent(slug)}/callback`,
    start: (slug) => `${base}/${encodeURIComponent(slug)}/start`,
  };
}
