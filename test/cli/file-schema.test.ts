// The published JSON Schema of outpost.yaml is the one the CLI's zod schema gives.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { OutpostFile } from '../../cli/src/config-as-code/file-schema.js';
import { CLI_SCHEMA_PATH, cliSchemaText } from '../../scripts/generate-cli-schema.js';

describe('outpost.yaml JSON Schema', () => {
  it('is up to date with the file schema (npm run generate:cli-schema)', () => {
    expect(readFileSync(CLI_SCHEMA_PATH, 'utf8')).to.equal(cliSchemaText());
  });

  it('describes every section, refuses unknown keys and requires secrets as ${ENV} references', () => {
    const schema = JSON.parse(cliSchemaText());
    expect(Object.keys(schema.properties)).to.have.members(['secrets', 'services', 'heartbeats', 'notification_channels', 'alert_rules', 'maintenance_windows', 'status_pages']);
    expect(schema.additionalProperties).to.equal(false);
    const options = schema.properties.services.items.properties.options.properties;
    for (const secret of [options.password, options.bearer_token, options.oauth2.properties.client_secret, schema.properties.secrets.items.properties.value]) {
      expect(secret.pattern).to.be.a('string');
    }
  });

  it('takes chat and pager providers with their keys, their secrets only as ${ENV} references', () => {
    const channels = (config: Record<string, unknown>, type = 'chat') => OutpostFile.safeParse({ notification_channels: [{ name: 'c', type, config }] }).success;
    expect(channels({ provider: 'telegram', bot_token: '${TG_TOKEN}', chat_id: -100123 })).to.equal(true);
    expect(channels({ provider: 'telegram', bot_token: '123:literal-token', chat_id: -100123 })).to.equal(false);
    expect(channels({ provider: 'pushover', token: '${PO_TOKEN}', user: '${PO_USER}' })).to.equal(true);
    expect(channels({ provider: 'slack', webhook_url: 'https://hooks.example.com/x' })).to.equal(true);
    expect(channels({ provider: 'slack', webhook_url: 'https://hooks.example.com/x', topic: 'ops' })).to.equal(false);
    expect(channels({ provider: 'fax', webhook_url: 'https://hooks.example.com/x' })).to.equal(false);
    expect(channels({ provider: 'opsgenie', api_key: '${GENIE_KEY}', region: 'eu' }, 'pager')).to.equal(true);
    expect(channels({ provider: 'opsgenie', api_key: 'plain-key' }, 'pager')).to.equal(false);
  });

  it('accepts the example outpost.yaml of the README', () => {
    const readme = readFileSync('README.md', 'utf8');
    const example = /```yaml\n# outpost\.yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'the README has an outpost.yaml example').to.be.a('string');
    const parsed = OutpostFile.safeParse(parse(example!));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
  });
});
