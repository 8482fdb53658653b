/** Where DOMAIN checks find each registry's RDAP service (RFC 7484), unless the agent is given a mirror. */
export const IANA_RDAP_BOOTSTRAP = 'https://data.iana.org/rdap/dns.json';
