// `{{name}}` in a MULTISTEP step's url, headers and body: a value an earlier step extracted,
// filled in by the agent; `{{secrets.NAME}}` is filled in by the control plane before that.

/** One placeholder, its name captured; global, for matchAll and replace. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;
