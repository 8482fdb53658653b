import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import net from 'node:net';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { endpointProblem } from '../../../shared/src/endpoints.js';
import { DYNAMIC_SECURITY_PLUGIN, FORBIDDEN_TOPIC, MOSQUITTO, MQTT_USER, startMosquitto, type MosquittoPeer } from '../../fixtures/peers/mosquitto.js';
import { peerBinary, requireCapability } from '../../fixtures/peers/require-peer.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

/** The machine's Mosquitto, which takes anonymous clients. */
const LOCAL_BROKER = 'mqtt://127.0.0.1:1883';
const OWN_PAYLOAD = /^\{"outpost_probe":"[0-9a-f]{16}"\}$/;

const uniqueTopic = () => `outpost-test/${randomBytes(6).toString('hex')}`;

/** A client of the test's own, to publish what the probe should see. */
async function testClient(port = 1883): Promise<MqttClient> {
  const client = new MqttClient(() => net.connect(port, '127.0.0.1'), { reconnectPeriod: 0, keepalive: 0, connectTimeout: 3_000 });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  return client;
}

describe('mqtt prober', () => {
  describe('against the Mosquitto of this machine', () => {
    let publisher: MqttClient;
    before(async () => {
      publisher = await testClient();
    });
    after(async () => {
      await publisher.endAsync(true);
    });

    it('is GREEN on a CONNACK when no topic is given', async () => {
      const r = await runProbe('MQTT', LOCAL_BROKER);
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^MQTT connected in \d+ ms$/);
      expect(r.details.connect_ms).to.be.a('number');
      expect(r).to.not.have.property('observed');
    });

    it('receives back the unique payload it publishes, as the message source', async () => {
      const r = await runProbe('MQTT', LOCAL_BROKER, { topic: uniqueTopic() });
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^MQTT round trip on outpost-test\/[0-9a-f]+ in \d+ ms$/);
      expect(r.details).to.have.keys('connect_ms', 'subscribe_ms', 'round_trip_ms');
      expect(r.observed?.message).to.match(OWN_PAYLOAD);
    });

    it("ignores a retained message and other clients' messages on the topic", async () => {
      const topic = uniqueTopic();
      await publisher.publishAsync(topic, 'retained noise', { retain: true, qos: 1 });
      const noise = setInterval(() => publisher.publish(topic, '{"outpost_probe":"someone else"}'), 2);
      try {
        const r = await runProbe('MQTT', LOCAL_BROKER, { topic });
        expect(r.ok, r.message).to.equal(true);
        expect(r.observed?.message).to.match(OWN_PAYLOAD);
      } finally {
        clearInterval(noise);
        await publisher.publishAsync(topic, '', { retain: true, qos: 1 });
      }
    });

    it('passes and fails assertions on the message and its JSON', async () => {
      const topic = uniqueTopic();
      const passing = await runProbe('MQTT', LOCAL_BROKER, {
        topic,
        assertions: [
          { source: 'message', comparison: 'contains', target: 'outpost_probe' },
          { source: 'json', property: '$.outpost_probe', comparison: 'exists' },
        ],
      });
      expect(passing.ok, passing.message).to.equal(true);
      expect(passing.details.assertions).to.have.length(2);
      const failing = await runProbe('MQTT', LOCAL_BROKER, { topic, assertions: [{ source: 'json', property: '$.temperature', comparison: 'exists' }] });
      expect(failing.ok).to.equal(false);
      expect(failing.message).to.match(/^json \$\.temperature exists/);
    });

    describe('with publish false', () => {
      const topic = uniqueTopic();
      before(() => publisher.publishAsync(`${topic}/kitchen`, '{"temperature":21.5}', { retain: true, qos: 1 }));
      after(() => publisher.publishAsync(`${topic}/kitchen`, '', { retain: true, qos: 1 }));

      it('takes the retained message of the topic, judged by assertions', async () => {
        const r = await runProbe('MQTT', LOCAL_BROKER, { topic: `${topic}/kitchen`, publish: false, assertions: [{ source: 'json', property: '$.temperature', comparison: 'greater_than', target: 20 }] });
        expect(r.ok, r.message).to.equal(true);
        expect(r.message).to.match(/^MQTT retained message on outpost-test\/[0-9a-f]+\/kitchen in \d+ ms$/);
        expect(r.observed).to.deep.equal({ message: '{"temperature":21.5}' });
        expect(r.details).to.include({ retained: true, topic: `${topic}/kitchen` });
        const colder = await runProbe('MQTT', LOCAL_BROKER, { topic: `${topic}/kitchen`, publish: false, assertions: [{ source: 'json', property: '$.temperature', comparison: 'less_than', target: 20 }] });
        expect(colder.ok).to.equal(false);
        expect(colder.message).to.match(/^json \$\.temperature less_than 20/);
      });

      it('waits on a filter with wildcards, and names the topic the message came on', async () => {
        const r = await runProbe('MQTT', LOCAL_BROKER, { topic: `${topic}/+`, publish: false });
        expect(r.ok, r.message).to.equal(true);
        expect(r.details.topic).to.equal(`${topic}/kitchen`);
      });

      it('takes the next message when none is retained', async () => {
        const quiet = uniqueTopic();
        const later = setTimeout(() => publisher.publish(quiet, 'hello'), 300);
        try {
          const r = await runProbe('MQTT', LOCAL_BROKER, { topic: quiet, publish: false });
          expect(r.ok, r.message).to.equal(true);
          expect(r.message).to.match(/^MQTT message on outpost-test\/[0-9a-f]+ in \d+ ms$/);
          expect(r.observed).to.deep.equal({ message: 'hello' });
          expect(r.details.retained).to.equal(false);
        } finally {
          clearTimeout(later);
        }
      });

      it('is RED when no message comes within the timeout', async () => {
        const quiet = uniqueTopic();
        const r = await runProbe('MQTT', LOCAL_BROKER, { topic: quiet, publish: false }, 700);
        expect(r).to.include({ ok: false, message: `no message on topic "${quiet}" within 700 ms` });
        expect(r.details).to.have.keys('connect_ms', 'subscribe_ms');
      });
    });
  });

  describe('against a Mosquitto with users, ACLs and TLS', () => {
    let broker: MosquittoPeer | undefined;
    const login = { username: MQTT_USER.username, password: MQTT_USER.password };
    before(async function () {
      peerBinary(MOSQUITTO, 'mosquitto', this);
      requireCapability(this, existsSync(DYNAMIC_SECURITY_PLUGIN) ? null : `${DYNAMIC_SECURITY_PLUGIN} is missing (Debian package mosquitto)`);
      broker = await startMosquitto();
    });
    after(() => broker?.stop());

    it('logs in and is GREEN on the round trip', async () => {
      const r = await runProbe('MQTT', broker!.endpoint, { ...login, topic: 'outpost/probe' });
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed?.message).to.match(OWN_PAYLOAD);
    });

    it('is RED when the broker refuses the login', async () => {
      const anonymous = await runProbe('MQTT', broker!.endpoint);
      expect(anonymous).to.include({ ok: false, message: 'MQTT login refused: not authorized (no username given)' });
      const wrong = await runProbe('MQTT', broker!.endpoint, { ...login, password: 'nope' });
      expect(wrong).to.include({ ok: false, message: 'MQTT login refused: not authorized (wrong username or password?)' });
    });

    it('is RED when the broker refuses the subscription', async () => {
      const r = await runProbe('MQTT', broker!.endpoint, { ...login, topic: FORBIDDEN_TOPIC });
      expect(r).to.include({ ok: false, message: `the broker refused the subscription to topic "${FORBIDDEN_TOPIC}"` });
      expect(r.details).to.have.keys('connect_ms');
    });

    it('verifies the TLS certificate, against ca_certificate when given', async () => {
      const untrusted = await runProbe('MQTT', broker!.tlsEndpoint, login);
      expect(untrusted).to.include({ ok: false, message: 'TLS certificate is self-signed' });
      const trusted = await runProbe('MQTT', broker!.tlsEndpoint, { ...login, topic: 'outpost/tls', ca_certificate: broker!.certificate });
      expect(trusted.ok, trusted.message).to.equal(true);
      const unverified = await runProbe('MQTT', broker!.tlsEndpoint, { ...login, verify_tls: false });
      expect(unverified.ok, unverified.message).to.equal(true);
    });

    it('is RED naming the option when ca_certificate is not a certificate', async () => {
      const r = await runProbe('MQTT', broker!.tlsEndpoint, { ...login, ca_certificate: 'not a PEM' });
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/^ca_certificate is not a PEM certificate/);
    });

    it('is RED when TLS is spoken to the plaintext listener', async () => {
      const r = await runProbe('MQTT', broker!.endpoint.replace('mqtt:', 'mqtts:'), login);
      expect(r.ok).to.equal(false);
      // Mosquitto resets a connection that does not start with an MQTT packet.
      expect(r.message).to.match(/^(connection reset by peer|TLS handshake failed)/);
    });
  });

  itFailsLikeAnyProtocol('MQTT', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^not an MQTT broker \(/, endpointFor: (hostPort) => `mqtt://${hostPort}` });

  describe('options', () => {
    const issues = (options: Record<string, unknown>) => {
      const parsed = parseCheckOptions('MQTT', options);
      return parsed.ok ? [] : parsed.issues;
    };

    it('takes a topic, credentials, TLS options and assertions on the message', () => {
      const options = { topic: 'sensors/probe', username: 'u', password: 'p', verify_tls: false, assertions: [{ source: 'json', property: '$.outpost_probe', comparison: 'exists' }] };
      expect(parseCheckOptions('MQTT', options)).to.deep.equal({ ok: true, options });
      expect(parseCheckOptions('MQTT', { topic: 'sensors/#', publish: false }).ok).to.equal(true);
    });

    it('refuses a wildcard topic for a round trip, and publish false without a topic', () => {
      expect(issues({ topic: 'sensors/+/temp' })).to.deep.equal([{ path: 'topic', message: 'a round trip publishes to its topic, which cannot hold + or #; set publish to false to wait on a filter' }]);
      expect(issues({ publish: false })).to.deep.equal([{ path: 'topic', message: 'waiting for a message needs a topic' }]);
    });

    it('refuses a password without a username', () => {
      expect(issues({ password: 'p' })).to.deep.equal([{ path: 'username', message: 'a password goes with a username' }]);
    });

    it('refuses assertions on the message without a topic', () => {
      expect(issues({ assertions: [{ source: 'message', comparison: 'contains', target: 'x' }] })).to.deep.equal([{ path: 'assertions.0.source', message: 'source message needs options.topic' }]);
      expect(issues({ assertions: [{ source: 'json', property: '$.a', comparison: 'exists' }] })).to.deep.equal([{ path: 'assertions.0.source', message: 'source json needs options.topic' }]);
    });

    it('takes an mqtt:// or mqtts:// URL without credentials as the endpoint', () => {
      expect(endpointProblem('mqtt-url', 'mqtt://broker.internal')).to.equal(null);
      expect(endpointProblem('mqtt-url', 'mqtts://[::1]:8883')).to.equal(null);
      expect(endpointProblem('mqtt-url', 'mqtt://user:secret@broker.internal')).to.match(/^must not carry credentials/);
      expect(endpointProblem('mqtt-url', 'mqtt://broker.internal/path')).to.equal('takes no path');
      expect(endpointProblem('mqtt-url', 'tcp://broker.internal')).to.match(/^must be a URL starting with mqtt:\/\//);
    });
  });
});
