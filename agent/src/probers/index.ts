// Every prober this agent ships, one per protocol family. Each is loaded on its first probe:
// an agent that checks only HTTP never loads the database drivers, ssh2 or ws (tens of MB).
import type { CheckFamily } from '../../../shared/src/check-types.js';
import { IANA_RDAP_BOOTSTRAP } from './rdap-bootstrap.js';
import { createTokenCache, type TokenCache } from './oauth2-token-cache.js';
import type { Probe, Prober } from './prober.js';

/** What the agent's configuration sets for its probers. */
export interface ProberSettings {
  rdapBootstrapUrl: string;
}

/** The probers of the HTTP-speaking families, sharing one oauth2 token cache: targets of one grant use one token. */
function loadersFor(tokens: TokenCache, settings: ProberSettings): Record<CheckFamily, () => Promise<Prober>> {
  return {
    HTTP: () => import('./http.js').then((m) => m.httpProber(tokens)),
    TCP: () => import('./tcp.js').then((m) => m.tcpProber()),
    ICMP: () => import('./icmp.js').then((m) => m.icmpProber()),
    DNS: () => import('./dns.js').then((m) => m.dnsProber()),
    WEBSOCKET: () => import('./websocket.js').then((m) => m.websocketProber(tokens)),
    SMTP: () => import('./smtp.js').then((m) => m.smtpProber()),
    IMAP: () => import('./imap.js').then((m) => m.imapProber()),
    FTP: () => import('./ftp.js').then((m) => m.ftpProber()),
    SSH: () => import('./ssh.js').then((m) => m.sshProber()),
    REDIS: () => import('./redis.js').then((m) => m.redisProber()),
    MYSQL: () => import('./mysql.js').then((m) => m.mysqlProber()),
    MONGODB: () => import('./mongodb.js').then((m) => m.mongodbProber()),
    POSTGRES: () => import('./postgres.js').then((m) => m.postgresProber()),
    GRPC: () => import('./grpc.js').then((m) => m.grpcProber()),
    TLS_CERTIFICATE: () => import('./tls-certificate.js').then((m) => m.tlsCertificateProber()),
    MULTISTEP: () => import('./multistep.js').then((m) => m.multistepProber(tokens)),
    SNMP: () => import('./snmp.js').then((m) => m.snmpProber()),
    NTP: () => import('./ntp.js').then((m) => m.ntpProber()),
    UDP: () => import('./udp.js').then((m) => m.udpProber()),
    LDAP: () => import('./ldap.js').then((m) => m.ldapProber()),
    RADIUS: () => import('./radius.js').then((m) => m.radiusProber()),
    SIP: () => import('./sip.js').then((m) => m.sipProber()),
    MQTT: () => import('./mqtt.js').then((m) => m.mqttProber()),
    AMQP: () => import('./amqp.js').then((m) => m.amqpProber()),
    NATS: () => import('./nats.js').then((m) => m.natsProber()),
    DOCKER: () => import('./docker.js').then((m) => m.dockerProber()),
    TRACEROUTE: () => import('./traceroute.js').then((m) => m.tracerouteProber()),
    DOMAIN: () => import('./domain.js').then((m) => m.domainProber({ bootstrapUrl: settings.rdapBootstrapUrl })),
  };
}

export function defaultProbers(settings: ProberSettings = { rdapBootstrapUrl: IANA_RDAP_BOOTSTRAP }): Prober[] {
  return Object.entries(loadersFor(createTokenCache(), settings)).map(([family, load]) => lazyProber(family as CheckFamily, load));
}

/**
 * Stands in for a prober until its first probe, which loads it. A target prepared before that
 * is prepared by the loaded prober on its first probe; later ones go straight to it.
 */
function lazyProber(family: CheckFamily, load: () => Promise<Prober>): Prober {
  let loaded: Prober | undefined;
  let loading: Promise<Prober> | undefined;
  return {
    family,
    prepare(target) {
      if (loaded) return loaded.prepare(target);
      let probe: Probe | undefined;
      return (signal) => {
        if (probe) return probe(signal);
        return (loading ??= load()).then((prober) => {
          loaded = prober;
          probe ??= prober.prepare(target);
          return probe(signal);
        });
      };
    },
  };
}
