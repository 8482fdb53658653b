// Reading outpost.yaml and planning against an empty organization, without a server.
import { expect } from 'chai';
import { KINDS } from '../../cli/src/config-as-code/kinds.js';
import { FileError, loadFile } from '../../cli/src/config-as-code/load-file.js';
import { makePlan, type RemoteState } from '../../cli/src/config-as-code/plan.js';
import { NameIndex } from '../../cli/src/config-as-code/references.js';

const emptyOrganization = (): RemoteState => ({
  rows: new Map(KINDS.map((k) => [k, []])),
  refs: { services: new NameIndex('service'), channels: new NameIndex('notification channel'), policies: new NameIndex('escalation policy'), pages: new NameIndex('status page') },
});

const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof FileError) return err.problems;
    throw err;
  }
  throw new Error('expected a FileError');
};

describe('loadFile', () => {
  const service = (endpoint: string) => `services:\n  - name: api\n    check_type: HTTP\n    endpoint: ${endpoint}\n`;

  it('replaces ${ENV} references in any string', () => {
    const { file } = loadFile(service('http://${API_HOST}:8080/'), 'o.yaml', { API_HOST: 'api.internal' });
    expect(file.services[0]!.endpoint).to.equal('http://api.internal:8080/');
  });

  it('names the line of a reference to an unset variable outside secrets', () => {
    expect(problemsOf(() => loadFile(service('http://${API_HOST}/'), 'o.yaml', {}))).to.deep.equal(['o.yaml:4:15: environment variable API_HOST is not set']);
  });

  it('keeps an unset secret as its reference, for the plan to keep the stored secret', () => {
    const text = `notification_channels:\n  - name: pager\n    type: pager\n    config:\n      integration_key: \${PAGER_KEY}\n`;
    expect(loadFile(text, 'o.yaml', {}).file.notification_channels[0]!.config).to.deep.equal({ integration_key: '${PAGER_KEY}' });
    // Creating the channel needs the value: the plan says which variable, on which line.
    expect(problemsOf(() => makePlan(loadFile(text, 'o.yaml', {}), emptyOrganization(), false))).to.deep.equal([
      'o.yaml:5:24: environment variable PAGER_KEY is not set (needed to create notification channel "pager")',
    ]);
  });

  describe('secrets', () => {
    const api = (options: string) =>
      `services:\n  - name: api\n    check_type: HTTP\n    endpoint: https://api.example.com/\n    options:\n${options}`;
    const oauth2 = '      oauth2:\n        token_url: https://auth.example.com/token\n        client_id: outpost\n        client_secret: ${OAUTH_SECRET}\n';

    it('keeps an unset nested secret option and an unset organization secret as references, and names their lines for a create', () => {
      const text = `secrets:\n  - name: API_TOKEN\n    value: \${API_TOKEN}\n${api(oauth2)}`;
      const loaded = loadFile(text, 'o.yaml', {});
      expect(loaded.file.secrets).to.deep.equal([{ name: 'API_TOKEN', value: '${API_TOKEN}' }]);
      expect(loaded.file.services[0]!.options.oauth2).to.deep.include({ client_secret: '${OAUTH_SECRET}' });
      expect(problemsOf(() => makePlan(loaded, emptyOrganization(), false))).to.deep.equal([
        'o.yaml:3:12: environment variable API_TOKEN is not set (needed to create secret "API_TOKEN")',
        'o.yaml:12:24: environment variable OAUTH_SECRET is not set (needed to create service "api")',
      ]);
      const set = loadFile(text, 'o.yaml', { API_TOKEN: 'tok', OAUTH_SECRET: 'cs' });
      expect(set.file.services[0]!.options.oauth2).to.deep.include({ client_secret: 'cs' });
      expect(makePlan(set, emptyOrganization(), false).changes.map((c) => `${c.action} ${c.kind.label} ${c.key}`)).to.deep.equal(['create secret API_TOKEN', 'create service api']);
    });

    it('takes {{secrets.NAME}} as a secret option and in any other option, as written', () => {
      const text = api('      bearer_token: "{{secrets.API_TOKEN}}"\n      headers:\n        X-Key: "{{secrets.API_KEY}}"\n      proxy: http://monitor:{{secrets.PROXY_PASSWORD}}@proxy.internal:3128\n');
      expect(loadFile(text, 'o.yaml', {}).file.services[0]!.options).to.deep.equal({
        bearer_token: '{{secrets.API_TOKEN}}',
        headers: { 'X-Key': '{{secrets.API_KEY}}' },
        proxy: 'http://monitor:{{secrets.PROXY_PASSWORD}}@proxy.internal:3128',
      });
    });

    it('refuses a literal secret, nested or in a proxy URL, and a literal organization secret, naming their lines', () => {
      const text = `secrets:\n  - name: API_TOKEN\n    value: tok-literal\n${api(`${oauth2.replace('${OAUTH_SECRET}', 'cs-literal')}      proxy: http://monitor:pass-literal@proxy.internal:3128\n`)}`;
      const problems = problemsOf(() => loadFile(text, 'o.yaml', {}));
      expect(problems).to.have.length(3);
      expect(problems[0]).to.match(/^o\.yaml:3:12: secrets\.0\.value: a secret must be an \$\{ENV\} reference/);
      expect(problems[1]).to.match(/^o\.yaml:12:24: services\.0\.options\.oauth2\.client_secret: a secret option must be an \$\{ENV\} reference/);
      expect(problems[2]).to.match(/^o\.yaml:13:14: services\.0\.options\.proxy: a proxy's password must be/);
    });
  });

  it('refuses two resources of a kind with one name, naming the second', () => {
    const text = `${service('http://a/')}  - name: api\n    check_type: TCP\n    endpoint: a:1\n`;
    expect(problemsOf(() => makePlan(loadFile(text, 'o.yaml', {}), emptyOrganization(), false))).to.deep.equal([
      'o.yaml:5:11: a second service "api"; names must be unique',
    ]);
  });

  it('names the lines of an unknown check type, an endpoint that does not fit its type and an unknown option', () => {
    const text = `services:\n  - name: a\n    check_type: htp\n    endpoint: x\n  - name: b\n    check_type: tcp\n    endpoint: no-port\n  - name: c\n    check_type: http\n    endpoint: http://c/\n    options:\n      methd: GET\n`;
    const problems = problemsOf(() => loadFile(text, 'o.yaml', {}));
    expect(problems).to.have.length(3);
    expect(problems[2]).to.equal('o.yaml:12:7: services.2.options: methd is not an option of check_type HTTP');
    expect(problems[0]).to.match(/^o\.yaml:3:17: services\.0\.check_type: must be one of HTTP, HTTPS, /);
    expect(problems[1]).to.match(/^o\.yaml:7:15: services\.1\.endpoint: must be host:port/);
  });

  it('reads an empty file as an organization with nothing in it', () => {
    const plan = makePlan(loadFile('', 'o.yaml', {}), emptyOrganization(), true);
    expect(plan.changes).to.deep.equal([]);
  });
});
