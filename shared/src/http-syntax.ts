// RFC 9110's grammar for what goes into an HTTP/1.1 head, shared by the API's validation of
// the headers users configure and the agent's HTTP prober that writes and reads heads.
// Free of zod, so the prober's bundle chunk does not need it.

/** A method or header name (RFC 9110 5.6.2). */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value as node's HTTP client accepts it: tab, visible ASCII and Latin-1, so no line break can end the field early. */
export const HTTP_FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
