import { dnsProber } from './dns.js';
import { ftpProber } from './ftp.js';
import { grpcProber } from './grpc.js';
import { httpProber } from './http.js';
import { icmpProber } from './icmp.js';
import { imapProber } from './imap.js';
import { mongodbProber } from './mongodb.js';
import { mysqlProber } from './mysql.js';
import { postgresProber } from './postgres.js';
import type { Prober } from './prober.js';
import { redisProber } from './redis.js';
import { smtpProber } from './smtp.js';
import { sshProber } from './ssh.js';
import { tcpProber } from './tcp.js';
import { tlsCertificateProber } from './tls-certificate.js';
import { websocketProber } from './websocket.js';

/** Every prober this agent version ships, one per protocol family. */
export function defaultProbers(): Prober[] {
  return [
    httpProber(),
    tcpProber(),
    icmpProber(),
    dnsProber(),
    websocketProber(),
    smtpProber(),
    imapProber(),
    ftpProber(),
    sshProber(),
    redisProber(),
    mysqlProber(),
    mongodbProber(),
    postgresProber(),
    grpcProber(),
    tlsCertificateProber(),
  ];
}
