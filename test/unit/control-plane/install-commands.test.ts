import { expect } from 'chai';
import { agentGrpcAddress, installCommands } from '../../../control-plane/src/features/agents/install-commands.js';

describe('agent install commands', () => {
  const settings = { publicGrpcAddress: undefined, grpcPort: 9090, tls: true };

  it('uses PUBLIC_GRPC_ADDRESS, else the request host name (bracketed when IPv6) and the gRPC port', () => {
    expect(agentGrpcAddress({ ...settings, publicGrpcAddress: 'cp.example.com:443' }, 'ignored')).to.equal('cp.example.com:443');
    expect(agentGrpcAddress(settings, 'outpost.lan')).to.equal('outpost.lan:9090');
    expect(agentGrpcAddress(settings, '2001:db8::1')).to.equal('[2001:db8::1]:9090');
    expect(agentGrpcAddress(settings, '[2001:db8::1]')).to.equal('[2001:db8::1]:9090');
  });

  it('adds --insecure only for plaintext to an address that is not loopback', () => {
    const agent = { token: 'opa_abc', location: 'berlin' };
    expect(installCommands('cp.lan:9090', agent, true).deb[1]).to.equal('sudo outpost-agent install --server cp.lan:9090 --token opa_abc --location berlin');
    expect(installCommands('cp.lan:9090', agent, false).deb[1]).to.match(/ --insecure$/);
    expect(installCommands('127.0.0.1:9090', agent, false).deb[1]).to.not.include('--insecure');
    expect(installCommands('[::1]:9090', agent, false).checkout[1]).to.not.include('--insecure');
  });

  it('quotes what a shell would otherwise read', () => {
    const [, command] = installCommands("cp.lan:9090", { token: "it's $HOME", location: 'x' }, true).deb;
    expect(command).to.equal(`sudo outpost-agent install --server cp.lan:9090 --token 'it'\\''s $HOME' --location x`);
  });
});
