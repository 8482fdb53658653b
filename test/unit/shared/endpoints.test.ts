import { expect } from 'chai';
import type { EndpointFormat } from '../../../shared/src/check-types.js';
import { endpointProblem, parseHostOptionalPort, parseSipUri, withoutBrackets } from '../../../shared/src/endpoints.js';

describe('withoutBrackets', () => {
  it('takes the brackets off an IPv6 address and leaves every other host as it is', () => {
    expect(withoutBrackets('[::1]')).to.equal('::1');
    expect(withoutBrackets('[fe80::1%eth0]')).to.equal('fe80::1%eth0');
    for (const host of ['::1', '127.0.0.1', 'db.internal', '[', ']', '[::1', '::1]', '']) expect(withoutBrackets(host), host).to.equal(host);
  });
});

describe('endpoint formats of the private-network check types', () => {
  const accepts = (format: EndpointFormat, values: string[]) => {
    for (const value of values) expect(endpointProblem(format, value), `${format} ${value}`).to.equal(null);
  };
  const refuses = (format: EndpointFormat, values: string[], reason: RegExp) => {
    for (const value of values) expect(endpointProblem(format, value), `${format} ${value}`).to.match(reason);
  };

  it('takes a host with or without a port where the protocol has its own (SNMP, NTP, RADIUS)', () => {
    accepts('host-optional-port', ['switch-1.internal', '10.0.0.1', '10.0.0.1:1161', '::1', '[::1]:161']);
    refuses('host-optional-port', ['', 'a b', '10.0.0.1:0', '10.0.0.1:70000', 'http://x'], /host, or host:port/);
    expect(parseHostOptionalPort('ntp.internal', 123)).to.deep.equal({ host: 'ntp.internal', port: 123 });
    expect(parseHostOptionalPort('[::1]:1123', 123)).to.deep.equal({ host: '::1', port: 1123 });
    expect(parseHostOptionalPort('::1', 161)).to.deep.equal({ host: '::1', port: 161 });
  });

  it('takes broker and directory URLs by their schemes, never with credentials, a path only for the AMQP vhost', () => {
    accepts('ldap-url', ['ldap://ldap.internal', 'ldaps://10.0.0.2:1636/']);
    accepts('mqtt-url', ['mqtt://broker.internal', 'mqtts://broker.internal:8883']);
    accepts('amqp-url', ['amqp://rabbit.internal', 'amqps://rabbit.internal:5671/%2F', 'amqp://rabbit.internal/production']);
    accepts('nats-url', ['nats://nats.internal:4222', 'tls://nats.internal']);
    refuses('ldap-url', ['http://ldap.internal', 'ldap.internal:389'], /ldap:\/\/ or ldaps:\/\//);
    refuses('mqtt-url', ['mqtt://user:secret@broker.internal', 'amqp://u:p@rabbit.internal'.replace('amqp', 'mqtt')], /credentials/);
    refuses('amqp-url', ['amqp://guest:guest@rabbit.internal/'], /options\.username and options\.password/);
    refuses('mqtt-url', ['mqtt://broker.internal/topic'], /takes no path/);
    refuses('nats-url', ['nats://nats.internal?x=1'], /no query/);
  });

  it('takes a SIP URI over UDP by default, or TCP', () => {
    expect(parseSipUri('sip:pbx.internal')).to.deep.equal({ host: 'pbx.internal', port: 5060, transport: 'udp' });
    expect(parseSipUri('sip:alice@10.0.0.5:5070;transport=TCP')).to.deep.equal({ host: '10.0.0.5', port: 5070, transport: 'tcp', user: 'alice' });
    expect(parseSipUri('sip:[::1]:5062;lr;transport=udp')).to.deep.equal({ host: '::1', port: 5062, transport: 'udp' });
    refuses('sip-uri', ['pbx.internal', 'sips:pbx.internal', 'sip:pbx.internal;transport=sctp', 'sip:pbx.internal:99999', 'sip:'], /SIP URI/);
  });

  it("takes a container's name or id, and a registered domain but not an address", () => {
    accepts('container', ['web', 'my_app.1-blue', 'f3c1a9d2e4b5']);
    refuses('container', ['', '-web', 'web/x', 'a b'], /name or id/);
    accepts('domain', ['example.com', 'example.co.uk', 'example.com.']);
    refuses('domain', ['localhost', '10.0.0.1', '::1', 'exa mple.com', 'https://example.com'], /registered domain/);
  });
});
