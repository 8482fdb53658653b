// net-ping tells a session's echo replies from others by the ICMP identifier of the session,
// the process id unless given. Every raw socket on the host sees every reply, so sessions that
// share one take each other's replies: a PING check of a host that is down would pass on the
// echo of another host checked at the same time. Each session gets its own; the count starts
// at a random point so that two agents on one host (the control plane's and another) differ too.
import { randomInt } from 'node:crypto';

const IDS = 65_534;
let last = randomInt(IDS);

/** An ICMP identifier (1 to 65534) no other open session of this process holds, short of 65534 at once. */
export function nextIcmpSessionId(): number {
  last = (last % IDS) + 1;
  return last;
}
