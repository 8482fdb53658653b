// On a status page's custom domain the server serves the dashboard with the page's slug in
// <meta name="outpost-status-page">, and "/" shows that page (no slug in the address).
export const customDomainSlug: string | null = document.querySelector('meta[name="outpost-status-page"]')?.getAttribute('content') || null;
