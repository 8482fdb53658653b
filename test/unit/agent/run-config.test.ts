import { expect } from 'chai';
import { AgentConfigError, loadRunConfig } from '../../../agent/src/config.js';
import { streamTls } from '../../../agent/src/control/credentials.js';

describe('agent run configuration', () => {
  const withServer = (server: string) => loadRunConfig({ server, token: 't' }, {});

  it('takes one control plane or several replicas separated by commas', () => {
    expect(withServer('cp.example:9090').server).to.equal('cp.example:9090');
    expect(withServer('cp-a:9090, cp-b:9090,[::1]:9091').server).to.equal('cp-a:9090, cp-b:9090,[::1]:9091');
    expect(loadRunConfig({ token: 't' }, { OUTPOST_SERVER: 'cp-a:9090,cp-b:9090' }).server).to.equal('cp-a:9090,cp-b:9090');
  });

  it('refuses a list with an address that is not HOST:PORT, naming the option', () => {
    for (const bad of ['cp-a:9090,cp-b', ',', 'cp-a:9090,,:1']) {
      expect(() => withServer(bad), bad).to.throw(AgentConfigError, /--server: must be HOST:PORT, or several separated by commas/);
    }
  });

  it('fills the defaults, and says in English what is wrong with an option that has no message of its own', () => {
    expect(withServer('cp:9090')).to.include({ server: 'cp:9090', token: 't', location: 'default', dataDir: './data/agent', logLevel: 'info', insecure: false });
    expect(() => loadRunConfig({ server: 'cp:9090', token: 't', logLevel: 'loud' }, {})).to.throw(AgentConfigError, 'invalid option --log-level: Invalid option: expected one of "fatal"|"error"|');
    expect(() => loadRunConfig({ server: 'cp:9090', token: 't', cert: 'c.pem' }, {})).to.throw(AgentConfigError, 'invalid option --cert: a client certificate needs both --cert and --key');
  });

  it('takes an http:// proxy from HTTPS_PROXY (or https_proxy) with NO_PROXY, and refuses any other', () => {
    const config = loadRunConfig({ server: 'cp:9090', token: 't' }, { https_proxy: 'http://proxy.lan:3128', NO_PROXY: 'lan' });
    expect([config.proxy, config.noProxy]).to.deep.equal(['http://proxy.lan:3128', 'lan']);
    for (const bad of ['https://proxy.lan:3128', 'socks5://proxy.lan:1080', 'proxy.lan:3128']) {
      expect(() => loadRunConfig({ server: 'cp:9090', token: 't' }, { HTTPS_PROXY: bad }), bad).to.throw(AgentConfigError, /HTTPS_PROXY: must be an http:\/\/ proxy URL/);
    }
  });

  it('goes plaintext only when every replica is on loopback', () => {
    expect(streamTls({ server: '127.0.0.1:1,localhost:2' })).to.equal(undefined);
    expect(streamTls({ server: '127.0.0.1:1,cp.example:2' })).to.not.equal(undefined);
  });
});
